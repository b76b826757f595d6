; Two mutually recursive functions form one call-graph SCC, and a third
; calls them: the SCC's label is "even +1 more".
define i1 @even(i32 %n) {
entry:
  %z = icmp eq i32 %n, 0
  br i1 %z, label %yes, label %rec
yes:
  ret i1 true
rec:
  %m = sub i32 %n, 1
  %r = call i1 @odd(i32 %m)
  ret i1 %r
}

define i1 @odd(i32 %n) {
entry:
  %z = icmp eq i32 %n, 0
  br i1 %z, label %no, label %rec
no:
  ret i1 false
rec:
  %m = sub i32 %n, 1
  %r = call i1 @even(i32 %m)
  ret i1 %r
}

define i32 @use(i32 %n) {
entry:
  %e = call i1 @even(i32 %n)
  %r = zext i1 %e to i32
  ret i32 %r
}
