#pragma once
// A small RAII wrapper over SQLite's C API for the run history (history_store.h): a connection
// and prepared statements. Every failure is UsageError{kExitBadInput, "<db>: <what SQLite
// says>"}: a database that is corrupt, locked past the busy timeout or not a database is a bad
// input of the command, exit 2 (DESIGN.md, "Command line").
#include <cstdint>
#include <string>

struct sqlite3;
struct sqlite3_stmt;

namespace gpubench {

class SqliteStatement;

class SqliteDb {
 public:
  // create: make the file when it is absent (history add); otherwise it must exist.
  SqliteDb(const std::string& path, bool create, double busy_timeout_s);
  ~SqliteDb();
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  void exec(const std::string& sql);
  // exec for the statements SQLite answers BUSY at once, without its busy handler: the switch
  // to WAL while another process opens the same new file. Retried until the busy timeout.
  void exec_waiting(const std::string& sql);
  SqliteStatement prepare(const std::string& sql);
  std::int64_t last_insert_rowid() const;
  // What a failed transaction ends with; an error here leaves SQLite to roll back on close.
  void rollback() noexcept;
  const std::string& path() const { return path_; }
  // Throws the error of the last call on this connection, prefixed by what was being done.
  [[noreturn]] void fail(const std::string& doing) const;

 private:
  std::string path_;
  double busy_timeout_s_;
  sqlite3* db_ = nullptr;
};

class SqliteStatement {
 public:
  SqliteStatement(SqliteDb& db, sqlite3_stmt* statement) : db_(&db), statement_(statement) {}
  ~SqliteStatement();
  SqliteStatement(SqliteStatement&& other) noexcept : db_(other.db_), statement_(other.statement_) {
    other.statement_ = nullptr;
  }
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;

  // Parameters from 1, as SQLite counts them.
  SqliteStatement& bind(int index, const std::string& text);
  SqliteStatement& bind(int index, double value);
  SqliteStatement& bind(int index, std::int64_t value);
  // A row to read (true) or the end (false); the statement is reset and its bindings cleared
  // once it ends, so that it can be bound and stepped again.
  bool step();
  // For statements that return no row (INSERT, UPDATE): step to the end.
  void run();
  std::string text(int column) const;
  double real(int column) const;
  std::int64_t integer(int column) const;
  bool is_null(int column) const;

 private:
  SqliteDb* db_;
  sqlite3_stmt* statement_;
};

// BEGIN IMMEDIATE ... COMMIT for a writer: the write lock is taken at the start, so that two
// writers wait for each other (busy timeout) instead of failing half-way; rolled back unless
// committed, so that a failure changes nothing. A reader's (write = false) sees one snapshot.
class SqliteTransaction {
 public:
  explicit SqliteTransaction(SqliteDb& db, bool write = true);
  ~SqliteTransaction();
  void commit();

 private:
  SqliteDb& db_;
  bool open_ = true;
};

}  // namespace gpubench
