// Helpers shared by the tests: where the data is, temporary folders, file helpers.
#pragma once
#include <string>
#include <vector>

namespace ofg::test {

// The shared data folder (ONNXFORGE_DATA, else ../shared beside the repository), or "" when absent.
std::string data_dir();
// A fresh temporary folder removed at process exit.
std::string temp_dir();
std::vector<uint8_t> read_file(const std::string& path);
void write_file(const std::string& path, const std::vector<uint8_t>& bytes);
bool file_exists(const std::string& path);
// Lists sub-folders (sorted) of `dir` that contain `file`.
std::vector<std::string> folders_with(const std::string& dir, const std::string& file);

}  // namespace ofg::test
