// Must not compile: gbcuda's Vector and Matrix hold the five value types only, and say which
// (a static_assert) instead of failing at link time. ctest compiles this with -DKIND=1 (Vector)
// and -DKIND=2 (Matrix) and expects the static_assert's message.
#include <cstdint>

#include <gbcuda/gbcuda.hpp>

int main() {
#if KIND == 1
  gbcuda::Vector<std::uint16_t> v(10);
  return int(v.size());
#else
  gbcuda::Matrix<unsigned> a;
  return int(a.nrows());
#endif
}
