#include "harness/analysis/history_sqlite.h"

#include <sqlite3.h>

#include <chrono>
#include <cmath>
#include <thread>

#include "harness/model/exit_codes.h"

namespace gpubench {

SqliteDb::SqliteDb(const std::string& path, bool create, double busy_timeout_s) : path_(path), busy_timeout_s_(busy_timeout_s) {
  const int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX;
  if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
    const std::string why = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw UsageError{kExitBadInput, path + ": cannot open the history database: " + why};
  }
  sqlite3_extended_result_codes(db_, 1);
  sqlite3_busy_timeout(db_, static_cast<int>(std::lround(busy_timeout_s * 1000)));
}

SqliteDb::~SqliteDb() { sqlite3_close(db_); }

void SqliteDb::fail(const std::string& doing) const {
  const int code = sqlite3_extended_errcode(db_);
  std::string why = sqlite3_errmsg(db_);
  if ((code & 0xff) == SQLITE_BUSY || (code & 0xff) == SQLITE_LOCKED)
    why += " (another process holds it; nothing was changed)";
  throw UsageError{kExitBadInput, path_ + ": " + doing + ": " + why};
}

void SqliteDb::exec(const std::string& sql) {
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) fail("history database");
}

void SqliteDb::exec_waiting(const std::string& sql) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(busy_timeout_s_);
  while (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) {
    if ((sqlite3_extended_errcode(db_) & 0xff) != SQLITE_BUSY || std::chrono::steady_clock::now() >= deadline)
      fail("history database");
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

SqliteStatement SqliteDb::prepare(const std::string& sql) {
  sqlite3_stmt* statement = nullptr;
  if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &statement, nullptr) != SQLITE_OK) fail("history database");
  return SqliteStatement(*this, statement);
}

void SqliteDb::rollback() noexcept { sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr); }

std::int64_t SqliteDb::last_insert_rowid() const { return sqlite3_last_insert_rowid(db_); }

SqliteStatement::~SqliteStatement() { sqlite3_finalize(statement_); }

SqliteStatement& SqliteStatement::bind(int index, const std::string& text) {
  if (sqlite3_bind_text(statement_, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT) != SQLITE_OK)
    db_->fail("history database");
  return *this;
}

SqliteStatement& SqliteStatement::bind(int index, double value) {
  if (sqlite3_bind_double(statement_, index, value) != SQLITE_OK) db_->fail("history database");
  return *this;
}

SqliteStatement& SqliteStatement::bind(int index, std::int64_t value) {
  if (sqlite3_bind_int64(statement_, index, value) != SQLITE_OK) db_->fail("history database");
  return *this;
}

bool SqliteStatement::step() {
  const int rc = sqlite3_step(statement_);
  if (rc == SQLITE_ROW) return true;
  sqlite3_reset(statement_);
  sqlite3_clear_bindings(statement_);
  if (rc != SQLITE_DONE) db_->fail("history database");
  return false;
}

void SqliteStatement::run() {
  while (step()) {
  }
}

std::string SqliteStatement::text(int column) const {
  const unsigned char* text = sqlite3_column_text(statement_, column);
  return text ? std::string(reinterpret_cast<const char*>(text), sqlite3_column_bytes(statement_, column)) : "";
}

double SqliteStatement::real(int column) const { return sqlite3_column_double(statement_, column); }
std::int64_t SqliteStatement::integer(int column) const { return sqlite3_column_int64(statement_, column); }
bool SqliteStatement::is_null(int column) const { return sqlite3_column_type(statement_, column) == SQLITE_NULL; }

SqliteTransaction::SqliteTransaction(SqliteDb& db, bool write) : db_(db) { db_.exec(write ? "BEGIN IMMEDIATE" : "BEGIN"); }

SqliteTransaction::~SqliteTransaction() {
  if (open_) db_.rollback();
}

void SqliteTransaction::commit() {
  db_.exec("COMMIT");
  open_ = false;
}

}  // namespace gpubench
