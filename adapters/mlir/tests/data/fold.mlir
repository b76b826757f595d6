// @f has 4 operations (func.func, arith.constant, arith.addi, func.return),
// which canonicalize folds to 2; @g has 2 and keeps them. The module: 7.
module {
  func.func @f(%x: i32) -> i32 {
    %c0 = arith.constant 0 : i32
    %a = arith.addi %x, %c0 : i32
    return %a : i32
  }
  func.func @g(%x: i32) -> i32 {
    return %x : i32
  }
}
