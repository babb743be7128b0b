#pragma once
// Numbers as text, the one %g formatter of every layer: a figure in a note, a message or a table
// cell, and the exact text in which a double crosses processes or lands in a page.
#include <string>

namespace gpubench {

// printf's %g with `significant` digits: 4 gives a figure as a note quotes it (4823, 0.4312);
// 17 gives text that reads back as the very same double.
std::string significant_text(double value, int significant);

}  // namespace gpubench
