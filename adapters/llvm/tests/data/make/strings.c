/* A string hash and a reverse, with byte loops. */
unsigned long hash_string(const char* s) {
  unsigned long h = 5381;
  while (*s) h = h * 33 + (unsigned char)*s++;
  return h;
}

void reverse(char* s, int n) {
  for (int i = 0, j = n - 1; i < j; ++i, --j) {
    char t = s[i];
    s[i] = s[j];
    s[j] = t;
  }
}
