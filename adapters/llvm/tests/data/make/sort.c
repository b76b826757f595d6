/* Insertion sort and a binary search. */
void insertion_sort(int* v, int n) {
  for (int i = 1; i < n; ++i) {
    int key = v[i], j = i - 1;
    while (j >= 0 && v[j] > key) {
      v[j + 1] = v[j];
      --j;
    }
    v[j + 1] = key;
  }
}

int binary_search(const int* v, int n, int key) {
  int lo = 0, hi = n - 1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2;
    if (v[mid] == key) return mid;
    if (v[mid] < key) lo = mid + 1; else hi = mid - 1;
  }
  return -1;
}
