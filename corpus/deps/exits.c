/*
 * exits.c -- control flow that leaves a loop early (break, return, goto out
 * of a nest, exit()), continue (harmless), searches rewritten without an
 * exit (reductions), and while/do-while loops: counted ones (not in OpenMP
 * canonical form as written, but convertible to for) and uncounted ones.
 *
 * Loops (line function: verdict, code [clauses] -- reason (notes)):
 *   L56  find_break: sequential, early-exit -- break: the iterations after
 *       the first match must not run (and pos must be the first match) (a break
 *       out of an OpenMP loop does not compile; the parallel equivalent is the min
 *       reduction in find_min)
 *   L68  find_return: sequential, early-exit -- return from inside the loop
 *   L78  find_goto: sequential, early-exit -- goto out of the nest
 *   L79  find_goto: sequential, early-exit -- goto out of the nest
 *   L92  check_exit: sequential, early-exit -- exit() may terminate the
 *       program in the middle: iterations after it must not have run (their
 *       effects could be observed through atexit/stdout) (never taken with main's
 *       data, so a forced parallel loop prints the same)
 *   L105 skip_odd: parallel, doall -- continue only skips the rest of one
 *       iteration
 *   L116 find_flag: parallel, reduction [reduction(||:found)] -- search
 *       without early exit: found = 1 in any matching iteration
 *   L126 find_min: parallel, reduction [reduction(min:first)] -- first
 *       matching index without early exit: min reduction
 *   L136 counted_while: sequential, not-canonical -- while loop: not in
 *       OpenMP canonical form as written (counted (i from 0 to n, step 1, i not
 *       otherwise written): rewriting as for (i = 0; i < n; i++) makes it a doall)
 *   L146 counted_do: sequential, not-canonical -- do-while loop: not in
 *       canonical form (counted (executes at least once); a for loop when n >= 1)
 *   L156 collatz: sequential, not-canonical -- uncounted while: the trip
 *       count depends on values computed in the loop (flow dependence on x)
 *   L168 chase: sequential, not-canonical -- linked-list traversal: p =
 *       nxt[p] is a flow dependence and the trip count is unknown
 *   L179 sum_collatz: parallel, reduction [reduction(+:t)] -- each iteration
 *       calls collatz() with its own argument (pure); sum reduction (unbalanced
 *       work: schedule(dynamic))
 *   L189 main: parallel, doall -- init
 *   L194 main: parallel, doall [private(j)] -- init
 *   L195 main: parallel, inner -- init (not annotated when the i loop is)
 *   L203 main: sequential, flow-dep -- checksum hash s = s*1000003 + b[i]:
 *       not a reduction (flow dependence on s) (order-sensitive on purpose)
 */
#include <stdio.h>
#include <stdlib.h>

#define N 100000
#define M 200

static int a[N], b[N], nxt[N];
static int g[M][M];

static int find_break(int n, int key)
{
  int i, pos = -1;

  for (i = 0; i < n; i++)
    if (a[i] == key) {
      pos = i;
      break;
    }
  return pos;
}

static int find_return(int n)
{
  int i;

  for (i = 0; i < n; i++)
    if (a[i] > 990)
      return i;
  return -1;
}

static int find_goto(int n, int key)
{
  int i, j, r = -1;

  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      if (g[i][j] == key) {
        r = i * n + j;
        goto out;
      }
out:
  return r;
}

static void check_exit(int n)
{
  int i;

  for (i = 0; i < n; i++) {
    if (a[i] < 0) {
      fprintf(stderr, "negative value at %d\n", i);
      exit(2);
    }
    b[i] = a[i] * 2 + 1;
  }
}

static void skip_odd(int n)
{
  int i;

  for (i = 0; i < n; i++) {
    if (a[i] % 2)
      continue;
    b[i] += a[i] / 2;
  }
}

static int find_flag(int n, int key)
{
  int i, found = 0;

  for (i = 0; i < n; i++)
    if (a[i] == key)
      found = 1;
  return found;
}

static int find_min(int n, int key)
{
  int i, first = n;

  for (i = 0; i < n; i++)
    if (a[i] == key && i < first)
      first = i;
  return first;
}

static void counted_while(int n)
{
  int i = 0;

  while (i < n) {
    b[i] += 3;
    i++;
  }
}

static void counted_do(int n)
{
  int i = 0;

  do {
    b[i] -= 1;
    i++;
  } while (i < n);
}

static int collatz(int x)
{
  int steps = 0;

  while (x != 1) {
    x = (x % 2) ? 3 * x + 1 : x / 2;
    steps++;
  }
  return steps;
}

static long long chase(int head)
{
  unsigned long long s = 0;
  int p = head;

  while (p >= 0) {
    s += a[p];
    p = nxt[p];
  }
  return s;
}

static int sum_collatz(int n)
{
  int i, t = 0;

  for (i = 1; i <= n; i++)
    t += collatz(i);
  return t;
}

int main(void)
{
  int i, j;
  long long s = 0;

  for (i = 0; i < N; i++) {
    a[i] = (int)(((long long)i * 7919) % 1000);
    b[i] = i % 7;
    nxt[i] = (i + 7) < N ? i + 7 : -1;
  }
  for (i = 0; i < M; i++)
    for (j = 0; j < M; j++)
      g[i][j] = (i * 13 + j * 17) % 4001;

  check_exit(N);
  skip_odd(N);
  counted_while(N);
  counted_do(N);

  for (i = 0; i < N; i++)
    s = s * 1000003ull + (unsigned long long)b[i];

  printf("break %d return %d goto %d\n", find_break(N, 500), find_return(N), find_goto(M, 3999));
  printf("flag %d min %d\n", find_flag(N, 500), find_min(N, 500));
  printf("collatz %d chase %lld b %llu\n", sum_collatz(3000), chase(3), s);
  return 0;
}
