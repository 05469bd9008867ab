// Every place a command writes to (the model OUT, the external data file beside it, --report
// FILE, --output-dir D) is checked before any work is done, so that a run that cannot write its
// result fails at once, with the path and the reason, instead of after loading, optimizing and
// printing a table. And when a command fails, what it was asked to write is not left new or
// changed: a report goes through a temporary file renamed into place, a folder made for
// --output-dir is removed again.
#pragma once
#include <string>
#include <vector>

namespace cli {

// Checks that a file can be written at `path`: its folder (for a symbolic link, the folder of the
// file it points to) exists, is a folder and is writable, and `path` itself is not a folder.
// Prints "onnxforge COMMAND: cannot write 'PATH': REASON" to stderr and returns false otherwise.
bool check_output_file(const char* command, const std::string& path);

// --output-dir D: made (with its missing parents, like mkdir -p) when absent, then checked to be a
// writable folder. Folders it made are removed again by remove_made() (when the command fails).
class OutputDir {
 public:
  // False (after printing why) when D cannot be made or written.
  bool prepare(const char* command, const std::string& dir);
  // Removes the folders prepare() made, deepest first, if they are still empty.
  void remove_made();

 private:
  std::vector<std::string> made_;
};

// A file written whole or not at all: the bytes go to a temporary file beside `path`, renamed over
// it when complete. False (after printing why, the temporary removed) when anything fails.
bool write_file_atomically(const char* command, const std::string& path, const std::string& bytes);

// The external data file ofg_save writes beside OUT with save.external_data: OUT.data, in OUT's
// folder.
std::string external_data_path(const std::string& out);
// The folder part of a path ("." when there is none).
std::string folder_of(const std::string& path);
// True when `path` exists (as anything, a dangling link too).
bool path_exists(const std::string& path);

}  // namespace cli
