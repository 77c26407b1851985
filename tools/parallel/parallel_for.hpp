// The host tools' one parallel loop, shared by the codebook trainer and the
// simulator. Tasks are indices and any thread may take any task, so callers
// make each task write only its own slot and combine the slots in task order:
// that, not the scheduling, is what keeps results bit for bit the same for 1
// or N threads.
#pragma once

#include <cstddef>
#include <functional>

namespace p2b::tools {

// Calls body(i) for every i in [0, tasks) on up to `threads` threads (the
// caller's included) and returns when all are done. If a task throws, no new
// task starts and the first exception is rethrown here. A call made from
// inside a task runs its tasks on the calling thread.
void parallel_for(std::size_t tasks, unsigned threads,
                  const std::function<void(std::size_t)>& body);

}  // namespace p2b::tools
