// Resolution of TensorProto external data (data_location = EXTERNAL) against one folder, with
// every location checked so that nothing a model says can make us read outside that folder.
#pragma once
#include <map>
#include <memory>
#include <string>

#include "ir/ir.h"
#include "onnx/mapped_file.h"

namespace ofg {

class ExternalData {
 public:
  explicit ExternalData(std::string folder) : folder_(std::move(folder)) {}
  // Returns a view of the tensor's bytes (`want` of them) in the mapped data file; the mapping
  // is added to the model's backings. Throws kInvalidModel naming the tensor and the reason.
  Bytes resolve(const Tensor& t, Model& m, size_t want, const std::string& where);

 private:
  std::string folder_;
  std::string real_folder_;
  std::map<std::string, std::shared_ptr<MappedFile>> files_;
};

// The location/offset/length entries of a tensor's external_data (kept in its extras).
struct ExternalRef {
  std::string location;
  bool has_offset = false, has_length = false;
  uint64_t offset = 0, length = 0;
};
ExternalRef read_external_ref(const Tensor& t, const std::string& where);

}  // namespace ofg
