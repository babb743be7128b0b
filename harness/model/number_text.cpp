#include "harness/model/number_text.h"

#include <cstdio>

namespace gpubench {

std::string significant_text(double value, int significant) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*g", significant, value);
  return text;
}

}  // namespace gpubench
