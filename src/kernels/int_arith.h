// Integer binary arithmetic as the kernels define it (kernels.h, BinaryOp): the broadcasting
// integer kernels and the interpreter's element loops for the other integer types both call it.
#pragma once

#include <type_traits>

#include "kernels/kernels.h"

namespace ofg::kernels {

// Add/Sub/Mul wrap modulo 2^n (computed unsigned: no undefined overflow); Div truncates, x/0 is
// 0 and INT_MIN/-1 wraps to INT_MIN; Pow by squaring with wrap-around, a negative exponent
// gives 0 unless the base is +-1.
template <class T>
T int_binary(BinaryOp op, T a, T b) {
  static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool>, "integer types only");
  using U = std::make_unsigned_t<T>;
  switch (op) {
    case BinaryOp::Add: return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
    case BinaryOp::Sub: return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
    case BinaryOp::Mul: return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
    case BinaryOp::Div:
      if (b == 0) return 0;
      if constexpr (std::is_signed_v<T>) {
        if (b == -1) return static_cast<T>(U(0) - static_cast<U>(a));
      }
      return static_cast<T>(a / b);
    case BinaryOp::Max: return a < b ? b : a;
    case BinaryOp::Min: return b < a ? b : a;
    case BinaryOp::Pow: {
      if constexpr (std::is_signed_v<T>) {
        if (b < 0) return static_cast<T>(a == 1 ? 1 : a == -1 ? ((b & 1) ? -1 : 1) : 0);
      }
      U result = 1, base = static_cast<U>(a);
      for (T e = b; e > 0; e >>= 1) {
        if (e & 1) result = static_cast<U>(result * base);
        base = static_cast<U>(base * base);
      }
      return static_cast<T>(result);
    }
  }
  return a;
}

}  // namespace ofg::kernels
