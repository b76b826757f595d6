; Parses, but does not verify: %x uses %y before its definition. With
; -disable-verify opt runs the pipeline, and its `verify` pass then stops the
; compile with a fatal error half-way.
define i32 @f(i32 %a) {
entry:
  %x = add i32 %y, 1
  %y = add i32 %a, 1
  ret i32 %x
}
