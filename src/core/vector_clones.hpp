// Private to the library: ASSAY_VECTOR_CLONES marks a loop-heavy function for AVX-512 and AVX2
// clones next to the baseline x86-64 one (2-double vectors), chosen at load time, on x86-64 GCC
// builds. Element-wise loops and integer counts give the baseline's bits in every clone as long
// as no multiply-add is fused: files whose cloned loops hold a * b + c are compiled with
// -ffp-contract=off (CMakeLists.txt). Sums of doubles kept in lanes need checking: GCC's AVX-512
// code may regroup them (it does for glmnet's eight-lane dot products, which therefore have only
// an AVX2 clone); every user here was checked bit for bit against the baseline.
#pragma once

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define ASSAY_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define ASSAY_VECTOR_CLONES
#endif
