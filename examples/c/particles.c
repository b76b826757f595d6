/* A small particle simulation: the bundled C input of `passtiming run`.
 *
 * Plain C with structs, loops, recursion and several functions, so that the
 * optimisation pipeline has real work to do (inlining, loop passes,
 * vectorisation, instruction combining) and the report shows it. */

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PARTICLES 4096
#define GRID_SIZE 32
#define HISTOGRAM_BINS 64

typedef struct {
  double x, y, z;
} Vec3;

typedef struct {
  Vec3 position;
  Vec3 velocity;
  double mass;
  double charge;
  int cell;
  int alive;
} Particle;

typedef struct {
  int count;
  int first;
} Cell;

typedef struct {
  Particle particles[MAX_PARTICLES];
  int next_in_cell[MAX_PARTICLES];
  Cell cells[GRID_SIZE * GRID_SIZE * GRID_SIZE];
  size_t count;
  double box;
  double time;
  uint64_t rng;
} World;

typedef struct {
  double kinetic;
  double potential;
  double momentum[3];
  unsigned histogram[HISTOGRAM_BINS];
} Stats;

static inline Vec3 vec_add(Vec3 a, Vec3 b) { return (Vec3){a.x + b.x, a.y + b.y, a.z + b.z}; }
static inline Vec3 vec_sub(Vec3 a, Vec3 b) { return (Vec3){a.x - b.x, a.y - b.y, a.z - b.z}; }
static inline Vec3 vec_scale(Vec3 a, double s) { return (Vec3){a.x * s, a.y * s, a.z * s}; }
static inline double vec_dot(Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline double vec_norm(Vec3 a) { return sqrt(vec_dot(a, a)); }

/* xorshift64*: deterministic, so every run simulates the same world. */
static uint64_t next_random(World* w) {
  w->rng ^= w->rng >> 12;
  w->rng ^= w->rng << 25;
  w->rng ^= w->rng >> 27;
  return w->rng * 2685821657736338717ULL;
}

static double uniform(World* w) { return (double)(next_random(w) >> 11) * (1.0 / 9007199254740992.0); }

static double wrap(double v, double box) {
  while (v < 0) v += box;
  while (v >= box) v -= box;
  return v;
}

static int cell_index(const World* w, Vec3 p) {
  int cx = (int)(p.x / w->box * GRID_SIZE);
  int cy = (int)(p.y / w->box * GRID_SIZE);
  int cz = (int)(p.z / w->box * GRID_SIZE);
  if (cx >= GRID_SIZE) cx = GRID_SIZE - 1;
  if (cy >= GRID_SIZE) cy = GRID_SIZE - 1;
  if (cz >= GRID_SIZE) cz = GRID_SIZE - 1;
  return (cx * GRID_SIZE + cy) * GRID_SIZE + cz;
}

void world_init(World* w, size_t count, double box, uint64_t seed) {
  memset(w, 0, sizeof *w);
  w->count = count > MAX_PARTICLES ? MAX_PARTICLES : count;
  w->box = box;
  w->rng = seed ? seed : 88172645463325252ULL;
  for (size_t i = 0; i < w->count; ++i) {
    Particle* p = &w->particles[i];
    p->position = (Vec3){uniform(w) * box, uniform(w) * box, uniform(w) * box};
    p->velocity = (Vec3){uniform(w) - 0.5, uniform(w) - 0.5, uniform(w) - 0.5};
    p->mass = 1.0 + uniform(w);
    p->charge = uniform(w) < 0.5 ? -1.0 : 1.0;
    p->alive = 1;
  }
}

void build_cells(World* w) {
  for (int c = 0; c < GRID_SIZE * GRID_SIZE * GRID_SIZE; ++c) {
    w->cells[c].count = 0;
    w->cells[c].first = -1;
  }
  for (size_t i = 0; i < w->count; ++i) {
    Particle* p = &w->particles[i];
    if (!p->alive) continue;
    p->cell = cell_index(w, p->position);
    w->next_in_cell[i] = w->cells[p->cell].first;
    w->cells[p->cell].first = (int)i;
    w->cells[p->cell].count++;
  }
}

static Vec3 pair_force(const Particle* a, const Particle* b, double* potential) {
  Vec3 d = vec_sub(a->position, b->position);
  double r2 = vec_dot(d, d) + 1e-3;
  double r = sqrt(r2);
  double strength = a->charge * b->charge / r2;
  *potential += a->charge * b->charge / r;
  return vec_scale(d, strength / r);
}

static Vec3 force_from_cell(const World* w, size_t i, int cell, double* potential) {
  Vec3 total = {0, 0, 0};
  for (int j = w->cells[cell].first; j >= 0; j = w->next_in_cell[j]) {
    if ((size_t)j == i) continue;
    total = vec_add(total, pair_force(&w->particles[i], &w->particles[j], potential));
  }
  return total;
}

double compute_forces(World* w, Vec3* forces) {
  double potential = 0.0;
  for (size_t i = 0; i < w->count; ++i) {
    const Particle* p = &w->particles[i];
    forces[i] = (Vec3){0, 0, 0};
    if (!p->alive) continue;
    int c = p->cell;
    int cx = c / (GRID_SIZE * GRID_SIZE), cy = (c / GRID_SIZE) % GRID_SIZE, cz = c % GRID_SIZE;
    for (int dx = -1; dx <= 1; ++dx) {
      for (int dy = -1; dy <= 1; ++dy) {
        for (int dz = -1; dz <= 1; ++dz) {
          int nx = (cx + dx + GRID_SIZE) % GRID_SIZE;
          int ny = (cy + dy + GRID_SIZE) % GRID_SIZE;
          int nz = (cz + dz + GRID_SIZE) % GRID_SIZE;
          int n = (nx * GRID_SIZE + ny) * GRID_SIZE + nz;
          forces[i] = vec_add(forces[i], force_from_cell(w, i, n, &potential));
        }
      }
    }
  }
  return potential * 0.5;
}

void integrate(World* w, const Vec3* forces, double dt) {
  for (size_t i = 0; i < w->count; ++i) {
    Particle* p = &w->particles[i];
    if (!p->alive) continue;
    Vec3 a = vec_scale(forces[i], 1.0 / p->mass);
    p->velocity = vec_add(p->velocity, vec_scale(a, dt));
    p->position = vec_add(p->position, vec_scale(p->velocity, dt));
    p->position.x = wrap(p->position.x, w->box);
    p->position.y = wrap(p->position.y, w->box);
    p->position.z = wrap(p->position.z, w->box);
  }
  w->time += dt;
}

/* Particles that come too close merge: the heavier one absorbs the other. */
size_t merge_collisions(World* w, double radius) {
  size_t merged = 0;
  for (int c = 0; c < GRID_SIZE * GRID_SIZE * GRID_SIZE; ++c) {
    for (int i = w->cells[c].first; i >= 0; i = w->next_in_cell[i]) {
      Particle* a = &w->particles[i];
      if (!a->alive) continue;
      for (int j = w->next_in_cell[i]; j >= 0; j = w->next_in_cell[j]) {
        Particle* b = &w->particles[j];
        if (!b->alive) continue;
        if (vec_norm(vec_sub(a->position, b->position)) < radius) {
          Particle* keep = a->mass >= b->mass ? a : b;
          Particle* gone = keep == a ? b : a;
          double total = keep->mass + gone->mass;
          keep->velocity = vec_scale(
              vec_add(vec_scale(keep->velocity, keep->mass), vec_scale(gone->velocity, gone->mass)),
              1.0 / total);
          keep->mass = total;
          keep->charge += gone->charge;
          gone->alive = 0;
          ++merged;
        }
      }
    }
  }
  return merged;
}

void collect_stats(const World* w, double potential, Stats* s) {
  memset(s, 0, sizeof *s);
  s->potential = potential;
  double max_speed = 0.0;
  for (size_t i = 0; i < w->count; ++i) {
    const Particle* p = &w->particles[i];
    if (!p->alive) continue;
    double speed = vec_norm(p->velocity);
    if (speed > max_speed) max_speed = speed;
    s->kinetic += 0.5 * p->mass * speed * speed;
    s->momentum[0] += p->mass * p->velocity.x;
    s->momentum[1] += p->mass * p->velocity.y;
    s->momentum[2] += p->mass * p->velocity.z;
  }
  for (size_t i = 0; i < w->count; ++i) {
    const Particle* p = &w->particles[i];
    if (!p->alive || max_speed == 0.0) continue;
    int bin = (int)(vec_norm(p->velocity) / max_speed * (HISTOGRAM_BINS - 1));
    s->histogram[bin]++;
  }
}

/* Median of the speed histogram, by a recursive search over the bins. */
static int histogram_median(const unsigned* bins, int lo, int hi, unsigned below, unsigned half) {
  if (lo >= hi) return lo;
  int mid = lo + (hi - lo) / 2;
  unsigned left = below;
  for (int i = lo; i <= mid; ++i) left += bins[i];
  if (left >= half) return histogram_median(bins, lo, mid, below, half);
  return histogram_median(bins, mid + 1, hi, left, half);
}

static int compare_mass(const void* a, const void* b) {
  double ma = ((const Particle*)a)->mass, mb = ((const Particle*)b)->mass;
  return (ma < mb) - (ma > mb);
}

void print_heaviest(World* w, size_t k) {
  static Particle sorted[MAX_PARTICLES];
  memcpy(sorted, w->particles, w->count * sizeof sorted[0]);
  qsort(sorted, w->count, sizeof sorted[0], compare_mass);
  for (size_t i = 0; i < k && i < w->count; ++i) {
    printf("  mass %8.3f at (%6.2f, %6.2f, %6.2f)\n", sorted[i].mass, sorted[i].position.x,
           sorted[i].position.y, sorted[i].position.z);
  }
}

uint32_t checksum(const World* w) {
  uint32_t h = 2166136261u;
  const unsigned char* bytes = (const unsigned char*)w->particles;
  for (size_t i = 0; i < w->count * sizeof(Particle); ++i) {
    h ^= bytes[i];
    h *= 16777619u;
  }
  return h;
}

int main(int argc, char** argv) {
  size_t count = argc > 1 ? (size_t)strtoul(argv[1], NULL, 10) : 1024;
  int steps = argc > 2 ? atoi(argv[2]) : 20;
  static World world;
  static Vec3 forces[MAX_PARTICLES];
  world_init(&world, count, 10.0, 42);
  Stats stats;
  for (int step = 0; step < steps; ++step) {
    build_cells(&world);
    double potential = compute_forces(&world, forces);
    integrate(&world, forces, 0.01);
    size_t merged = merge_collisions(&world, 0.02);
    collect_stats(&world, potential, &stats);
    unsigned alive = 0;
    for (int b = 0; b < HISTOGRAM_BINS; ++b) alive += stats.histogram[b];
    int median = histogram_median(stats.histogram, 0, HISTOGRAM_BINS - 1, 0, (alive + 1) / 2);
    printf("step %3d: E=%10.4f (kin %9.4f, pot %9.4f) merged %zu, median speed bin %d\n", step,
           stats.kinetic + stats.potential, stats.kinetic, stats.potential, merged, median);
  }
  print_heaviest(&world, 5);
  printf("checksum %08x\n", checksum(&world));
  return 0;
}
