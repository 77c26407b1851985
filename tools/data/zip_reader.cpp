#include "data/zip_reader.hpp"

#include <zlib.h>

#include <limits>
#include <stdexcept>

namespace p2b::data {

namespace {

constexpr uint32_t kEndOfDirectory = 0x06054b50;
constexpr uint32_t kDirectoryEntry = 0x02014b50;
constexpr uint32_t kLocalHeader = 0x04034b50;
constexpr uint16_t kZip64Extra = 0x0001;
constexpr uint32_t kZip64Marker = 0xffffffff;

class Reader {
 public:
  Reader(const uint8_t* data, size_t size, const std::string& archive)
      : data_(data), size_(size), archive_(archive) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error(archive_ + ": " + what);
  }

  void need(size_t at, size_t n) const {
    if (at > size_ || n > size_ - at) fail("truncated archive");
  }
  uint64_t le(size_t at, size_t n) const {
    need(at, n);
    uint64_t v = 0;
    for (size_t k = n; k-- > 0;) v = (v << 8) | data_[at + k];
    return v;
  }
  size_t size() const { return size_; }
  const uint8_t* at(size_t offset) const { return data_ + offset; }

 private:
  const uint8_t* data_;
  size_t size_;
  const std::string& archive_;
};

// The end-of-central-directory record: the last 22 bytes, unless the
// archive has a comment (up to 64 KiB) after it.
size_t find_end_record(const Reader& r) {
  if (r.size() < 22) r.fail("not a zip archive (too short)");
  const size_t lowest = r.size() > 22 + 0xffff ? r.size() - 22 - 0xffff : 0;
  for (size_t p = r.size() - 22 + 1; p-- > lowest;) {
    if (r.le(p, 4) == kEndOfDirectory && p + 22 + r.le(p + 20, 2) == r.size()) return p;
  }
  r.fail("not a zip archive (no end-of-central-directory record)");
}

// Replaces 0xffffffff sizes and offset by their ZIP64 extra-field values,
// which appear in this order and only for the fields that overflowed.
void apply_zip64(const Reader& r, size_t extra, size_t extra_len, uint64_t& usize, uint64_t& csize,
                 uint64_t& offset) {
  size_t p = extra;
  while (p + 4 <= extra + extra_len) {
    const uint64_t id = r.le(p, 2);
    const size_t len = static_cast<size_t>(r.le(p + 2, 2));
    if (p + 4 + len > extra + extra_len) r.fail("extra field overruns its entry");
    if (id == kZip64Extra) {
      size_t q = p + 4;
      for (uint64_t* field : {&usize, &csize, &offset}) {
        if (*field != kZip64Marker) continue;
        if (q + 8 > p + 4 + len) r.fail("ZIP64 extra field too short");
        *field = r.le(q, 8);
        q += 8;
      }
    }
    p += 4 + len;
  }
}

std::vector<uint8_t> inflate_raw(const Reader& r, const uint8_t* src, size_t csize, size_t usize,
                                 const std::string& name) {
  // One spare byte, so a stream longer than declared is caught too.
  std::vector<uint8_t> out(usize + 1);
  z_stream z{};
  if (inflateInit2(&z, -MAX_WBITS) != Z_OK) r.fail("zlib init failed");
  z.next_in = const_cast<Bytef*>(src);  // zlib's API is not const-correct
  z.avail_in = static_cast<uInt>(csize);
  z.next_out = out.data();
  z.avail_out = static_cast<uInt>(usize + 1);
  const int rc = inflate(&z, Z_FINISH);
  const size_t produced = usize + 1 - z.avail_out;
  inflateEnd(&z);
  out.resize(usize);
  if (rc != Z_STREAM_END || produced != usize) {
    r.fail(name + ": deflate data is corrupt or does not match its declared size");
  }
  return out;
}

}  // namespace

std::vector<ZipEntry> read_zip(const uint8_t* data, size_t size, const std::string& archive,
                               size_t max_entries, size_t max_total_bytes) {
  const Reader r(data, size, archive);
  const size_t end = find_end_record(r);
  const uint64_t count = r.le(end + 10, 2);
  const uint64_t dir_size = r.le(end + 12, 4);
  const uint64_t dir_offset = r.le(end + 16, 4);
  if (count == 0xffff || dir_offset == kZip64Marker) r.fail("ZIP64 central directory unsupported");
  if (count > max_entries) r.fail("more than " + std::to_string(max_entries) + " entries");
  if (dir_offset > end || dir_size > end - dir_offset) r.fail("central directory out of range");

  std::vector<ZipEntry> entries;
  size_t total = 0;
  size_t p = static_cast<size_t>(dir_offset);
  for (uint64_t i = 0; i < count; ++i) {
    if (r.le(p, 4) != kDirectoryEntry) r.fail("bad central directory entry");
    const uint64_t flags = r.le(p + 8, 2);
    const uint64_t method = r.le(p + 10, 2);
    const auto crc = static_cast<uint32_t>(r.le(p + 16, 4));
    uint64_t csize = r.le(p + 20, 4);
    uint64_t usize = r.le(p + 24, 4);
    const auto name_len = static_cast<size_t>(r.le(p + 28, 2));
    const auto extra_len = static_cast<size_t>(r.le(p + 30, 2));
    const auto comment_len = static_cast<size_t>(r.le(p + 32, 2));
    uint64_t offset = r.le(p + 42, 4);
    r.need(p + 46, name_len + extra_len + comment_len);
    ZipEntry e;
    e.name.assign(reinterpret_cast<const char*>(r.at(p + 46)), name_len);
    apply_zip64(r, p + 46 + name_len, extra_len, usize, csize, offset);
    p += 46 + name_len + extra_len + comment_len;

    if (flags & 1) r.fail(e.name + ": encrypted entries unsupported");
    if (method != 0 && method != 8) {
      r.fail(e.name + ": compression method " + std::to_string(method) + " unsupported");
    }
    if (usize > max_total_bytes - total) {
      r.fail("more than " + std::to_string(max_total_bytes) + " bytes uncompressed");
    }
    total += static_cast<size_t>(usize);
    if (method == 0 && csize != usize) r.fail(e.name + ": stored entry with two sizes");
    if (csize > std::numeric_limits<uInt>::max()) r.fail(e.name + ": entry too large");
    // The local header repeats name and extra field with its own lengths.
    if (offset > size || r.le(static_cast<size_t>(offset), 4) != kLocalHeader) {
      r.fail(e.name + ": bad local header");
    }
    const auto local = static_cast<size_t>(offset);
    const size_t start =
        local + 30 + static_cast<size_t>(r.le(local + 26, 2) + r.le(local + 28, 2));
    if (start > size || csize > size - start) r.fail(e.name + ": data runs past the archive");
    const uint8_t* src = r.at(start);
    if (method == 0) {
      e.bytes.assign(src, src + csize);
    } else {
      e.bytes = inflate_raw(r, src, static_cast<size_t>(csize), static_cast<size_t>(usize), e.name);
    }
    const uLong actual = crc32(0L, e.bytes.data(), static_cast<uInt>(e.bytes.size()));
    if (actual != crc) r.fail(e.name + ": CRC-32 mismatch");
    entries.push_back(std::move(e));
  }
  return entries;
}

}  // namespace p2b::data
