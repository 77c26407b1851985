#include "test_io.h"

#include "p2b.h"
#include "semihosting.h"

static int failed;

void out_str(const char* s) {
  p2b_semihost_write0(s);
}

void out_u32(uint32_t v) {
  char buf[11];
  char* p = buf + sizeof buf - 1;
  *p = '\0';
  do {
    *--p = (char)('0' + v % 10u);
    v /= 10u;
  } while (v != 0u);
  out_str(p);
}

void out_milli(double v) {
  if (v < 0) {
    out_str("-");
    v = -v;
  }
  const uint32_t milli = (uint32_t)(v * 1000.0 + 0.5);
  out_u32(milli / 1000u);
  out_str(".");
  const uint32_t frac = milli % 1000u;
  if (frac < 100u) out_str("0");
  if (frac < 10u) out_str("0");
  out_u32(frac);
}

int check(int ok, const char* what) {
  out_str(ok ? "  ok   " : "  FAIL ");
  out_str(what);
  out_str("\n");
  if (!ok) ++failed;
  return ok;
}

int check_status(int got, int want, const char* what) {
  const int ok = check(got == want, what);
  if (!ok) {
    out_str("       status: ");
    out_str(p2b_status_str((p2b_status)got));
    out_str("\n");
  }
  return ok;
}

int failures(void) {
  return failed;
}
