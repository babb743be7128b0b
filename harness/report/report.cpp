#include "harness/report/report.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "harness/model/exit_codes.h"

namespace gpubench {

Format parse_format(const std::string& name) {
  if (name == "table") return Format::kTable;
  if (name == "json") return Format::kJson;
  if (name == "csv") return Format::kCsv;
  if (name == "md" || name == "markdown") return Format::kMarkdown;
  if (name == "prometheus") return Format::kPrometheus;
  throw UsageError{kExitBadInput, "unknown format '" + name + "' (table, json, csv, md, prometheus)"};
}

namespace {

std::string cannot_write(const std::string& path, int error) {
  return path + ": cannot write: " + std::strerror(error);
}

// Writes all of `text` to `fd` and fsyncs it: 0, or the errno of the step that failed.
int write_all(int fd, const std::string& text) {
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? errno : EIO;
    done += static_cast<std::size_t>(n);
  }
  // A pipe or a terminal has nothing to sync (EINVAL); anything else that fails to sync lost data.
  return fsync(fd) != 0 && errno != EINVAL ? errno : 0;
}

// Writes and closes `fd`: 0, or the errno of the first step that failed.
int write_and_close(int fd, const std::string& text) {
  const int written = write_all(fd, text);
  const int closed = close(fd) != 0 ? errno : 0;
  return written ? written : closed;
}

bool is_existing_non_regular(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode);
}

std::filesystem::path directory_of(const std::filesystem::path& target) {
  return target.has_parent_path() ? target.parent_path() : ".";
}

}  // namespace

void check_writable(const std::string& path) {
  const std::filesystem::path target(path);
  const std::filesystem::path dir = directory_of(target);
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    throw UsageError{kExitCannotWrite, path + ": cannot write: no directory " + dir.string()};
  if (std::filesystem::is_directory(target, ec))
    throw UsageError{kExitCannotWrite, path + ": cannot write: it is a directory"};
  if (is_existing_non_regular(path)) {  // written in place (write_file_atomically): open it
    const int fd = open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) throw UsageError{kExitCannotWrite, cannot_write(path, errno)};
    close(fd);
    return;
  }
  std::string probe = (dir / ".gpubench-write-test-XXXXXX").string();
  const int fd = mkstemp(probe.data());
  if (fd < 0)
    throw UsageError{kExitCannotWrite, path + ": cannot write in " + dir.string() + ": " + std::strerror(errno)};
  close(fd);
  unlink(probe.c_str());
}

void write_file_atomically(const std::string& path, const std::string& text) {
  if (is_existing_non_regular(path)) {
    const int fd = open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0) throw UsageError{kExitCannotWrite, cannot_write(path, errno)};
    if (const int error = write_and_close(fd, text)) throw UsageError{kExitCannotWrite, cannot_write(path, error)};
    return;
  }
  const std::filesystem::path target(path);
  const std::filesystem::path dir = directory_of(target);
  const std::string temp = (dir / ("." + target.filename().string() + ".tmp-" + std::to_string(getpid()))).string();
  const int fd = open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) throw UsageError{kExitCannotWrite, cannot_write(path, errno)};
  int error = write_and_close(fd, text);
  if (!error && std::rename(temp.c_str(), path.c_str()) != 0) error = errno;
  if (error) {
    std::remove(temp.c_str());
    throw UsageError{kExitCannotWrite, cannot_write(path, error)};
  }
  // The rename itself is durable only once the directory is on disk as well.
  // (A directory that cannot be opened for reading cannot be synced: the file is written.)
  if (const int directory = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); directory >= 0) {
    error = fsync(directory) != 0 && errno != EINVAL ? errno : 0;
    close(directory);
    if (error) throw UsageError{kExitCannotWrite, cannot_write(path, error)};
  }
}

std::string write_fallback_file(const std::string& path, const std::string& text, std::string* why_not) {
  const std::filesystem::path target(path);
  const std::string extension = target.extension().string();
  const std::string name = "gpubench-" + target.stem().string() + "-XXXXXX" + extension;
  const char* tmpdir = std::getenv("TMPDIR");
  std::string reasons;
  for (const std::string& dir : {std::string(tmpdir && *tmpdir ? tmpdir : "/tmp"), std::string(".")}) {
    std::string candidate = (std::filesystem::path(dir) / name).string();
    const int fd = mkstemps(candidate.data(), static_cast<int>(extension.size()));
    const int error = fd < 0 ? errno : write_and_close(fd, text);
    std::error_code ec;
    if (!error) return std::filesystem::absolute(candidate, ec).string();
    if (fd >= 0) unlink(candidate.c_str());
    reasons += (reasons.empty() ? "" : "; ") + cannot_write(dir, error);
  }
  if (why_not) *why_not = reasons;
  return "";
}

bool write_file_or_fallback(const std::string& path, const std::string& text) {
  std::string failure;
  try {
    write_file_atomically(path, text);
    return true;
  } catch (const UsageError& error) {
    failure = error.message;
  }
  std::string why_not;
  const std::string fallback = write_fallback_file(path, text, &why_not);
  failure += fallback.empty() ? "; no fallback file either (" + why_not + ")" : "; written to " + fallback + " instead";
  std::fprintf(stderr, "gpubench: %s\n", failure.c_str());
  return false;
}

}  // namespace gpubench
