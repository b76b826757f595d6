; Two functions whose instruction counts the plugin test knows exactly:
; instcombine folds @fold from 3 instructions to 1 and leaves @keep (2) as
; it is.
define i32 @fold(i32 %x) {
entry:
  %a = add i32 %x, 0
  %b = mul i32 %a, 1
  ret i32 %b
}

define i32 @keep(i32 %x) {
entry:
  %a = add i32 %x, 1
  ret i32 %a
}
