#pragma once

// Background work yields the CPU to the GUI thread. With as many busy workers as cores, a GUI
// thread of the same priority waits its turn behind them, and the window stops answering for
// tens of milliseconds at a time while a scan parses; a worker that is "nicer" is preempted as
// soon as the GUI thread has something to do, and still gets every cycle the GUI leaves.

namespace rg {

// Lowers the calling thread's CPU priority (Linux: to nice 5, unless it is already nicer) for
// the rest of its life; threads it starts afterwards inherit it. Does nothing elsewhere.
void lowerCurrentThreadPriority();

} // namespace rg
