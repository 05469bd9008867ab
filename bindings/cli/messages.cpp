#include "messages.h"

#include <algorithm>
#include <cstdio>

namespace cli {

namespace {

// Drops "PREFIX: " from the front of `text` when it is there.
bool drop_prefix(std::string& text, const std::string& prefix) {
  if (prefix.empty() || text.compare(0, prefix.size() + 2, prefix + ": ") != 0) return false;
  text.erase(0, prefix.size() + 2);
  return true;
}

// A leading C function name: "ofg_verify: ", "ofg_options_set: ".
bool drop_function_name(std::string& text) {
  if (text.rfind("ofg_", 0) != 0) return false;
  size_t end = text.find_first_not_of("abcdefghijklmnopqrstuvwxyz_0123456789");
  if (end == std::string::npos || text.compare(end, 2, ": ") != 0) return false;
  text.erase(0, end + 2);
  return true;
}

}  // namespace

std::string error_text(const std::string& command, const std::string& subject, const std::string& library_text) {
  std::string text = library_text;
  while (drop_function_name(text) || drop_prefix(text, command)) {
  }
  // The library names its option keys; the person typed the command-line options.
  static const std::pair<const char*, const char*> kOptions[] = {{"verify.input.", "--input "},
                                                                {"verify.test_data", "--test-data"},
                                                                {"verify.dim.", "--dim "}};
  for (auto& [key, option] : kOptions)
    if (text.rfind(key, 0) == 0) text = option + text.substr(std::string(key).size());
  if (text.empty()) text = "failed";
  // Named already: as "PATH: ..." or quoted ('PATH'); a mere substring (a path "a") is not enough.
  if (subject.empty() || text.find(subject + ": ") != std::string::npos || text.find("'" + subject + "'") != std::string::npos)
    return text;
  return subject + ": " + text;
}

void print_error(const std::string& command, const std::string& subject, ofg_status s) {
  std::string text = error_text(command, subject, ofg_last_error());
  std::fprintf(stderr, "onnxforge %s: %s [%s]\n", command.c_str(), text.c_str(), ofg_status_string(s));
}

namespace {

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string nearest(const std::string& name, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_distance = 0;
  for (const std::string& c : candidates) {
    size_t d = edit_distance(name, c);
    if (best.empty() || d < best_distance) {
      best = c;
      best_distance = d;
    }
  }
  size_t longer = std::max(name.size(), best.size());
  // Close enough: at most a third of the letters differ (one at least may), and not all of them.
  return !best.empty() && best_distance <= std::max<size_t>(1, longer / 3) && best_distance < longer ? best : std::string();
}

std::string did_you_mean(const std::string& name, const std::vector<std::string>& candidates) {
  std::string n = nearest(name, candidates);
  return n.empty() ? std::string() : " (did you mean '" + n + "'?)";
}

std::vector<std::string> pass_names() {
  std::vector<std::string> names;
  for (size_t i = 0, n = ofg_pass_count(); i < n; ++i) names.push_back(ofg_pass_name(i));
  return names;
}

std::string unknown_pass(const std::string& list) {
  const std::vector<std::string> names = pass_names();
  size_t p = 0;
  while (p <= list.size()) {
    size_t q = std::min(list.find(',', p), list.size());
    std::string name = list.substr(p, q - p);
    if (name.empty()) return "empty pass name in '" + list + "' (onnxforge passes lists them)";
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      std::string n = nearest(name, names);
      return "unknown pass '" + name + "' (" + (n.empty() ? "" : "did you mean '" + n + "'?; ") +
             "onnxforge passes lists them)";
    }
    p = q + 1;
  }
  return "";
}

}  // namespace cli
