// Wall time since this process started (exec), for the "… s wall" lines commands end with: it includes what runs
// before main (loading the SystemC, MPI, ONNX and fabric libraries), which can take longer than the work itself.
#pragma once

namespace maeri::util {

// Seconds since the process started, from the kernel's start time (/proc/self/stat, resolution one clock tick,
// 10 ms); where that cannot be read, since the first call.
double seconds_since_process_start();

}  // namespace maeri::util
