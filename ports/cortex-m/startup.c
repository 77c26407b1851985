/* Minimal Cortex-M4 start-up for the qemu test image: vector table, FPU on,
 * .data/.bss set up, static constructors, main, and a semihosting exit with
 * main's status. Faults report themselves and exit nonzero, so a trap (the
 * malloc stub, a bad pointer) ends the qemu run instead of hanging it. */
#include <stdint.h>

#include "semihosting.h"

extern uint32_t __data_start, __data_end, __data_load, __bss_start, __bss_end;
extern uint32_t __stack_top[]; /* an array, so its name is the address */
extern void (*__init_array_start[])(void);
extern void (*__init_array_end[])(void);

int main(void);
void p2b_reset_handler(void);

enum { kFaultExitCode = 3 };

static void fault_handler(void) {
  p2b_semihost_write0("p2b cortex-m: hard fault\n");
  p2b_semihost_exit(kFaultExitCode);
}

/* Never inlined into the reset handler: it may use FP registers, which must
 * not happen before CPACR enables the FPU. */
__attribute__((noinline)) static void start_c(void) {
  uint32_t* src = &__data_load;
  for (uint32_t* dst = &__data_start; dst < &__data_end;) *dst++ = *src++;
  for (uint32_t* dst = &__bss_start; dst < &__bss_end;) *dst++ = 0;
  for (void (**ctor)(void) = __init_array_start; ctor < __init_array_end; ++ctor) (*ctor)();
  p2b_semihost_exit(main());
}

void p2b_reset_handler(void) {
  /* CPACR: full access to coprocessors 10 and 11, the FPU. */
  volatile uint32_t* const cpacr = (volatile uint32_t*)0xE000ED88u;
  *cpacr |= 0xFu << 20;
  __asm__ volatile("dsb\n\tisb" ::: "memory");
  start_c();
}

typedef void (*vector)(void);

/* Initial SP, reset, NMI, HardFault, MemManage, BusFault, UsageFault. */
__attribute__((section(".vectors"), used)) static const vector vectors[16] = {
    (vector)__stack_top, p2b_reset_handler, fault_handler, fault_handler,
    fault_handler,       fault_handler,     fault_handler,
};
