#include "assay/core/input_files.hpp"

#include <sys/stat.h>

#include <atomic>
#include <map>
#include <mutex>
#include <utility>

namespace assay {
namespace {

using FileId = std::pair<dev_t, ino_t>;

struct Record {
  std::mutex mutex;
  int scopes = 0;  // guarded by mutex; `active` mirrors scopes > 0 for a lock-free early out
  std::atomic<bool> active{false};
  std::map<FileId, NamedInput> inputs;
};

Record& record() {
  static Record r;
  return r;
}

std::optional<FileId> file_id(const std::string& path) {
  struct stat st {};
  if (path.empty() || ::stat(path.c_str(), &st) != 0) return std::nullopt;
  return FileId{st.st_dev, st.st_ino};
}

}  // namespace

void note_input(const std::string& path, std::string_view role) {
  Record& r = record();
  if (!r.active.load(std::memory_order_acquire)) return;
  const auto id = file_id(path);
  if (!id) return;
  const std::lock_guard lock(r.mutex);
  if (r.scopes > 0) r.inputs.try_emplace(*id, NamedInput{path, std::string(role)});
}

void note_inputs(const std::vector<NamedInput>& inputs) {
  for (const auto& input : inputs) note_input(input.path, input.role);
}

std::optional<NamedInput> noted_input(const std::string& path) {
  Record& r = record();
  if (!r.active.load(std::memory_order_acquire)) return std::nullopt;
  const auto id = file_id(path);
  if (!id) return std::nullopt;
  const std::lock_guard lock(r.mutex);
  const auto it = r.inputs.find(*id);
  if (it == r.inputs.end()) return std::nullopt;
  return it->second;
}

InputFilesScope::InputFilesScope() {
  Record& r = record();
  const std::lock_guard lock(r.mutex);
  ++r.scopes;
  r.active.store(true, std::memory_order_release);
}

InputFilesScope::~InputFilesScope() {
  Record& r = record();
  const std::lock_guard lock(r.mutex);
  if (--r.scopes > 0) return;
  r.active.store(false, std::memory_order_release);
  r.inputs.clear();
}

}  // namespace assay
