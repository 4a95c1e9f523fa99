// The memory budget of one command (docs/cli.md, "Memory budget"): what a run may hold at once, checked before a
// large allocation so that an input that cannot be run within the machine's memory is refused up front — exit 2,
// naming the tensor and the bytes it would need — instead of being found by the allocator (std::bad_alloc, or the
// kernel's OOM killer after minutes of swapping: issue 43, item 2). Default: half of the memory the kernel says is
// available when the process starts (MemAvailable in /proc/meminfo; else half the physical memory, sysconf);
// `--memory-budget BYTES` (or MAERI_MEMORY_BUDGET) sets it for the command.
#pragma once

#include <cstdint>
#include <string>

namespace maeri::util {

// The default: MemAvailable / 2 from /proc/meminfo, else physical pages · page size / 2, else 4 GiB.
std::uint64_t default_memory_budget();

// The budget in force (the default until set_memory_budget is called).
std::uint64_t memory_budget();
void set_memory_budget(std::uint64_t bytes);

// "4096", "512K", "1.5G", "2T" (binary multiples) as bytes; throws InputError at `field` when the text is not a
// positive size.
std::uint64_t parse_memory_size(const std::string& text, const std::string& field);

// Throws InputError at `file` and `field` when `bytes` (what `what` would hold, e.g. "tensor 'x' (1, 3, 224, 224)")
// exceed the budget: "… would need N bytes (1.2 GiB), more than the memory budget of M bytes …". `bytes` is a long
// double so that a caller's product of extents cannot wrap before it is compared.
void require_memory(long double bytes, const std::string& file, const std::string& field, const std::string& what);

// "1.2 GiB", "512 MiB", "300 bytes".
std::string memory_size_text(long double bytes);

}  // namespace maeri::util
