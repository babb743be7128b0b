#pragma once
#include <string>

#include "harness/model/context.h"

namespace gpubench {

// `gpubench info`: context, link matrix and health, as text.
std::string format_info(const Context& context);

}  // namespace gpubench
