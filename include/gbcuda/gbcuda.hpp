#pragma once
// Everything in gbcuda's public API.
#include "gbcuda/bfs.hpp"
#include "gbcuda/context.hpp"
#include "gbcuda/descriptor.hpp"
#include "gbcuda/generators.hpp"
#include "gbcuda/io.hpp"
#include "gbcuda/matrix.hpp"
#include "gbcuda/matrix_operations.hpp"
#include "gbcuda/operations.hpp"
#include "gbcuda/reorder.hpp"
#include "gbcuda/semiring.hpp"
#include "gbcuda/types.hpp"
#include "gbcuda/vector.hpp"
