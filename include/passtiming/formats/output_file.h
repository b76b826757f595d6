#pragma once
/// \file
/// Output that appears whole or not at all, written a piece at a time.
///
/// Reports and profiles of a million records run to a hundred megabytes or
/// more. Renderers therefore hand their text to a TextSink in pieces of
/// about 64 KiB instead of building it in one string: the process then
/// touches a few pages of memory instead of a hundred megabytes of them,
/// which is most of the cost of a big output.

#include <functional>
#include <string>
#include <string_view>

namespace passtiming {

/// Receives text a piece at a time, in order.
using TextSink = std::function<void(std::string_view)>;

/// The size of the pieces the renderers hand to a TextSink.
inline constexpr std::size_t kTextPieceBytes = std::size_t{64} << 10;

/// A file being written: the text goes to a temporary file next to `path`,
/// which commit() renames over `path`, so readers never see half a file and
/// a failure never leaves one. Destroying it without commit() removes the
/// temporary file and leaves `path` as it was. `-` is stdout; a device or a
/// pipe (`/dev/null`, a FIFO) is written in place, since renaming over it
/// would replace the device node. Every error throws std::runtime_error
/// naming the path.
///
///     passtiming::OutputFile out("profile.json");
///     passtiming::write_profile_json(profile, out.sink());
///     out.commit();
class OutputFile {
 public:
  explicit OutputFile(std::string path);
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile();

  void write(std::string_view data);
  /// A sink that writes here; valid while this object lives.
  TextSink sink() {
    return [this](std::string_view data) { write(data); };
  }
  /// Finishes the file: closes it and renames it over the target.
  void commit();

 private:
  enum class Kind { kStdout, kInPlace, kTemporary };
  [[noreturn]] void fail(std::string_view what, int error);

  std::string path_;
  std::string temp_;
  Kind kind_ = Kind::kTemporary;
  int fd_ = -1;
};

/// Replaces `path` with `data` through an OutputFile.
void write_file_atomically(const std::string& path, std::string_view data);

}  // namespace passtiming
