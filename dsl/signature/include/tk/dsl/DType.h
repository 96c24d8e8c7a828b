//===- DType.h - element types a kernel can read and write ----------------===//
#pragma once

#include <cstdint>
#include <string>

namespace tk::dsl {

/// Values match tk_dtype in include/tk/tk.h.
enum class DType : int32_t { BF16 = 0, F16 = 1, F32 = 2, F8E4M3 = 3, I8 = 4, U8 = 5, I32 = 6, I64 = 7, I16 = 8 };

inline int64_t byteSize(DType t) {
  switch (t) {
  case DType::BF16:
  case DType::F16:
  case DType::I16:
    return 2;
  case DType::F32:
  case DType::I32:
    return 4;
  case DType::I64:
    return 8;
  default:
    return 1;
  }
}

inline const char *name(DType t) {
  switch (t) {
  case DType::BF16: return "bf16";
  case DType::F16: return "f16";
  case DType::F32: return "f32";
  case DType::F8E4M3: return "e4m3";
  case DType::I8: return "i8";
  case DType::U8: return "u8";
  case DType::I32: return "i32";
  case DType::I64: return "i64";
  case DType::I16: return "i16";
  }
  return "?";
}

inline bool isFloat(DType t) {
  return t == DType::BF16 || t == DType::F16 || t == DType::F32 || t == DType::F8E4M3;
}

} // namespace tk::dsl
