#pragma once
// Numbers as text where a benchmark writes one into a note or hands one to another process.
#include <string>

namespace gpubench {

// printf's %g with `significant` digits: 4 gives a figure as a note quotes it (4823, 0.4312);
// 17 gives text that reads back as the very same double.
std::string significant_text(double value, int significant);

}  // namespace gpubench
