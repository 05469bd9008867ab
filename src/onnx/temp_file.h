// A file written beside the one it replaces and put in its place only once complete, so a reader
// sees the old file or the whole new one, and an interrupted or failed save leaves nothing new.
#pragma once
#include <string>

namespace ofg {

class TempFile {
 public:
  // Creates the file that will replace `target`. A symlink `target` is followed: the file it
  // points to is replaced and the link stays. The new file gets the replaced file's mode (and
  // owner and group where the process may set them), or for a new target 0666 less the umask.
  // Where the system allows (Linux's O_TMPFILE), the file has no name until commit(), so it
  // cannot outlive the process; elsewhere it is TARGET.tmp-XXXXXX, registered for
  // remove_registered_temporary_files until it is committed or removed.
  explicit TempFile(const std::string& target);
  ~TempFile();  // not committed: the file is removed; committed: as settle()
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  int fd() const { return fd_; }
  // The path the file replaces (the end of a symlink chain), for messages.
  const std::string& target() const { return target_; }
  // Flushes the bytes to the device when `durable`.
  void finish(bool durable);
  // Puts the file in place of the target, atomically. Where the system can exchange two names,
  // the replaced file is kept aside until settle() (removes it) or rollback() (puts it back).
  void commit();
  void settle();
  // Undoes commit(): the replaced file is back, or, when there was none, the new file is removed.
  // Without the exchange (old kernels, some file systems) a replaced file cannot be restored.
  void rollback();

 private:
  void create_named(int mode);
  void give_name();

  std::string target_;  // the file to replace (links resolved)
  std::string path_;    // the temporary name ("" while the file has none)
  int fd_ = -1;
  int slot_ = -1;        // its entry in the table of temporary paths, or -1
  bool replacing_ = false;  // a regular file was at the target when we began
  bool committed_ = false;
  bool displaced_ = false;  // after commit: the replaced file is at path_
};

// Unlinks every temporary file that a save in progress has a name for. Async-signal-safe: it
// only reads a fixed table and calls unlink(2). What ofg_remove_temporary_files calls.
void remove_registered_temporary_files();

}  // namespace ofg
