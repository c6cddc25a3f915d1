// Must not compile: gbcuda's Vector and Matrix hold GraphBLAS's eleven built-in value types only, and say which
// (a static_assert) instead of failing at link time. ctest compiles this with -DKIND=1 (Vector)
// and -DKIND=2 (Matrix) and expects the static_assert's message.
#include <cstdint>

#include <gbcuda/gbcuda.hpp>

int main() {
#if KIND == 1
  gbcuda::Vector<char> v(10);  // char is neither int8_t (signed char) nor uint8_t
  return int(v.size());
#else
  gbcuda::Matrix<long double> a;
  return int(a.nrows());
#endif
}
