#include "harness/cli/output.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "harness/model/exit_codes.h"
#include "harness/report/report.h"

namespace gpubench {

bool stdout_written() {
  static bool said = false;
  std::cout.flush();
  const int error = errno;  // the failing write's, where the write or this flush failed just now
  if (std::cout && std::fflush(stdout) == 0 && !std::ferror(stdout)) return true;
  if (!said)
    std::fprintf(stderr, "gpubench: stdout: cannot write%s%s (the output is cut short)\n", error ? ": " : "",
                 error ? std::strerror(error) : "");
  said = true;
  return false;
}

bool write_output(const std::string& text, const std::string& path) {
  if (!path.empty()) return write_file_or_fallback(path, text);
  errno = 0;
  std::cout << text;
  return stdout_written();
}

int exit_code_after_stdout(int exit_code) {
  return stdout_written() ? exit_code : exit_code_with_failed_write(exit_code);
}

}  // namespace gpubench
