// Building block shared by the layers with loop-heavy kernels (metrics: ranking, regression,
// vector math; shift: segmentation, fast_log): ASSAY_VECTOR_CLONES marks a function for AVX-512
// and AVX2 clones next to the baseline x86-64 one (2-double vectors), chosen at load time, on
// x86-64 GCC builds; elsewhere it expands to nothing. Internal API: no stability promise to users.
//
// Example (a member of a local class here; in a source file, a function at namespace scope):
//   struct Kernel {
//     ASSAY_VECTOR_CLONES static void scale(const double* x, std::size_t n, double a,
//                                           double* out) {
//       for (std::size_t i = 0; i < n; ++i) out[i] = a * x[i];
//     }
//   };
//   double x[3] = {1, 2, 3}, y[3];
//   Kernel::scale(x, 3, 2.0, y);  // the AVX-512 clone on a machine that has AVX-512
//   y[2];                         // 6
//
// Element-wise loops and integer counts give the baseline's bits in every clone as long as no
// multiply-add is fused: files whose cloned loops hold a * b + c are compiled with
// -ffp-contract=off (CMakeLists.txt). Sums of doubles kept in lanes need checking: GCC's AVX-512
// code may regroup them (it does for glmnet's eight-lane dot products, which therefore have only
// an AVX2 clone); every user here was checked bit for bit against the baseline.
#pragma once

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define ASSAY_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define ASSAY_VECTOR_CLONES
#endif
