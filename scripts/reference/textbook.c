/*
 * textbook.c: the reference counter every speed ratio in this repository is measured against.
 *
 * The textbook N-Queens counter, written for this repository: one thread, one row at a time,
 * the columns and both diagonals under attack kept as bitmasks, the free squares of a row
 * taken lowest first, recursion for the next row. The only symmetry it uses is the mirror
 * image on the first row: a queen in the left half of the first row stands for itself and its
 * mirror image, and on an odd board the middle column is counted once.
 *
 * It is the algorithm of the usual published reference counters; scripts/reference.sh times it
 * side by side with any other C counter (results/README.md has the figures). The scripts build
 * it with the same compiler and flags as such a counter:
 *
 *     cc -O3 -march=native -o textbook textbook.c
 *     ./textbook N        prints "N SOLUTIONS", 0 <= N <= 28 (the counts fit in 64 bits)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Completions of a board whose filled rows attack `columns`, `left` (the diagonals going down
 * to the left, already shifted onto the next row) and `right` (down to the right). `board` has
 * one bit per column; the board is full when every column holds a queen. */
static uint64_t complete(uint32_t board, uint32_t columns, uint32_t left, uint32_t right)
{
    if (columns == board)
        return 1;
    uint64_t solutions = 0;
    uint32_t open = board & ~(columns | left | right);
    while (open != 0) {
        uint32_t queen = open & (0u - open); /* the lowest free square */
        open ^= queen;
        solutions += complete(board, columns | queen, (left | queen) << 1, (right | queen) >> 1);
    }
    return solutions;
}

/* All solutions of the n-board: the first row's queen in each column of the left half counts
 * twice (its mirror image), the middle column of an odd board once. */
static uint64_t solutions(int n)
{
    if (n == 0)
        return 1; /* the empty board */
    uint32_t board = (1u << n) - 1;
    uint64_t total = 0;
    for (int column = 0; column < (n + 1) / 2; column++) {
        uint32_t queen = 1u << column;
        uint64_t here = complete(board, queen, queen << 1, queen >> 1);
        total += (2 * column + 1 == n) ? here : 2 * here;
    }
    return total;
}

int main(int argc, char **argv)
{
    char *end = NULL;
    long n = (argc == 2) ? strtol(argv[1], &end, 10) : -1;
    if (argc != 2 || end == argv[1] || *end != '\0' || n < 0 || n > 28) {
        fprintf(stderr, "usage: %s N   (a board size from 0 to 28)\n", argv[0]);
        return 2;
    }
    printf("%ld %llu\n", n, (unsigned long long)solutions((int)n));
    return 0;
}
