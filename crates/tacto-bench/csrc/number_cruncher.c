/*
 * The reference system's work per node, compiled by gcc as upstream's rclcpp build is.
 *
 * This is upstream's `number_cruncher` (ros-realtime/reference-system,
 * reference_system/include/reference_system/number_cruncher.hpp, Copyright 2021 Apex.AI,
 * Inc., Apache-2.0), written in C: the same loops over the same 64-bit unsigned types, and the
 * same empty asm statement that keeps `is_prime` from being optimised away. Compiled by gcc,
 * `i % n` is one 64-bit `div` per trial, as in upstream's g++ build. The same Rust source
 * compiled by rustc/LLVM gets a 32-bit fast path (a `div` on 32-bit registers whenever both
 * operands fit), which costs about half as much and made tacto's crunch cheaper than
 * upstream's for the same limit. `docs/benchmarks.md` shows the instructions.
 */
#include <stdbool.h>
#include <stdint.h>

int64_t tacto_number_cruncher(uint64_t maximum_number)
{
    int64_t number_of_primes = 0;
    uint64_t initial_value = 2;
    /* Upstream's edge case: a limit of 2 or less counts nothing and returns 2. */
    if (maximum_number <= initial_value) {
        return 2;
    }
    for (uint64_t i = initial_value; i <= maximum_number; ++i) {
        bool is_prime = true;
        for (uint64_t n = initial_value; n < i; ++n) {
            if (i % n == 0) {
                is_prime = false;
                break;
            }
        }
        /* Upstream's escape(is_prime): the compiler must assume the value is read. */
        __asm__ volatile("" : : "g"(is_prime) : "memory");
        if (is_prime) {
            ++number_of_primes;
        }
    }
    return number_of_primes;
}
