/* Dot products and a saxpy: vectorisable loops. */
double dot(const double* a, const double* b, int n) {
  double s = 0.0;
  for (int i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

void saxpy(float* y, const float* x, float a, int n) {
  for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
}
