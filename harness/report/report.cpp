#include "harness/report/report.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "harness/report/exit_codes.h"

namespace gpubench {

Format parse_format(const std::string& name) {
  if (name == "table") return Format::kTable;
  if (name == "json") return Format::kJson;
  if (name == "csv") return Format::kCsv;
  if (name == "md" || name == "markdown") return Format::kMarkdown;
  if (name == "prometheus") return Format::kPrometheus;
  throw UsageError{kExitBadInput, "unknown format '" + name + "' (table, json, csv, md, prometheus)"};
}

void check_writable(const std::string& path) {
  const std::filesystem::path target(path);
  const std::filesystem::path dir = target.has_parent_path() ? target.parent_path() : ".";
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    throw UsageError{kExitBadInput, path + ": cannot write: no directory " + dir.string()};
  if (std::filesystem::is_directory(target, ec))
    throw UsageError{kExitBadInput, path + ": cannot write: it is a directory"};
  std::string probe = (dir / ".gpubench-write-test-XXXXXX").string();
  const int fd = mkstemp(probe.data());
  if (fd < 0)
    throw UsageError{kExitBadInput, path + ": cannot write in " + dir.string() + ": " + std::strerror(errno)};
  close(fd);
  unlink(probe.c_str());
}

void write_file_atomically(const std::string& path, const std::string& text) {
  const std::filesystem::path target(path);
  const std::filesystem::path dir = target.has_parent_path() ? target.parent_path() : ".";
  const std::string temp = (dir / ("." + target.filename().string() + ".tmp-" + std::to_string(getpid()))).string();
  FILE* file = std::fopen(temp.c_str(), "wb");
  if (!file) throw UsageError{kExitBadInput, path + ": cannot write: " + std::strerror(errno)};
  const bool written = std::fwrite(text.data(), 1, text.size(), file) == text.size() &&
                       std::fflush(file) == 0 && fsync(fileno(file)) == 0;
  const int write_errno = errno;
  if (std::fclose(file) != 0 || !written) {
    std::remove(temp.c_str());
    throw UsageError{kExitBadInput, path + ": cannot write: " + std::strerror(write_errno)};
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    const int rename_errno = errno;
    std::remove(temp.c_str());
    throw UsageError{kExitBadInput, path + ": cannot write: " + std::strerror(rename_errno)};
  }
  // The rename itself is durable only once the directory is on disk as well.
  if (const int directory = open(dir.c_str(), O_RDONLY | O_DIRECTORY); directory >= 0) {
    fsync(directory);
    close(directory);
  }
}

}  // namespace gpubench
