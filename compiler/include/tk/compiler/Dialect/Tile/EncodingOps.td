//===- EncodingOps.td - packed number formats -*- tablegen -*-===//
#ifndef TK_TILE_ENCODING_OPS_TD
#define TK_TILE_ENCODING_OPS_TD

include "tk/compiler/Dialect/Tile/TileOpBase.td"

def Tile_PackE2M1Op : Tile_Op<"pack_e2m1", [Pure, Tile_LayoutRules<["inferResultLayout"]>]> {
  let summary = "FP4 (E2M1) codes of f32 elements, two per byte";
  let description = [{
    Encodes each element to E2M1 (round to nearest even onto
    {0, 0.5, 1, 1.5, 2, 3, 4, 6}, saturating at 6, sign kept, also for zero)
    and packs pairs along the last dimension: element 2i in the low nibble and
    2i + 1 in the high nibble of byte i. The result's last dimension is half the
    input's; its layout is the input's with half the vector along that
    dimension, so each thread packs pairs it already holds.
      %q = tile.pack_e2m1 %t : !tile.frag<4x1024xf32> -> !tile.frag<4x512xi8>
  }];
  let arguments = (ins Tile_AnyFragment:$input);
  let results = (outs Tile_AnyFragment:$result);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def Tile_UnpackE2M1Op : Tile_Op<"unpack_e2m1", [Pure, Tile_LayoutRules<["hintOperandLayouts", "inferResultLayout", "requiredOperandLayout"]>]> {
  let summary = "f32 values of FP4 (E2M1) codes packed two per byte";
  let description = [{
    The inverse of `tile.pack_e2m1`: byte i holds element 2i in its low nibble
    and 2i + 1 in its high nibble; each code decodes exactly to f32. The result
    has twice the input's last dimension, and its layout is the input's with
    twice the vector along that dimension.
      %v = tile.unpack_e2m1 %q : !tile.frag<4x512xi8> -> !tile.frag<4x1024xf32>
  }];
  let arguments = (ins Tile_AnyFragment:$input);
  let results = (outs Tile_AnyFragment:$result);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def Tile_E2M1ToE4M3Op : Tile_Op<"e2m1_to_e4m3", [Pure, Tile_LayoutRules<["hintOperandLayouts", "requiredOperandLayout", "verifyOperandLayouts"]>]> {
  let summary = "E4M3 codes of FP4 (E2M1) codes scaled by powers of two";
  let description = [{
    `result[..., j] = e4m3(decode(code j) * 2^shift[..., j])`: the codes are
    packed two per byte as `tile.unpack_e2m1` reads them, the product is
    encoded like `tile.convert` to f8E4M3FN (nearest even, saturating). Every
    shift in [-5, 6] maps each FP4 value exactly onto an e4m3 value (the
    lossless re-blocking); shifts beyond [-126, 127] act as -126 or 127
    (every result is then 0 or +-448 anyway). The codes' layout is the
    result's with half the vector along the last dimension, the shift's is
    the result's.
    On the GPU each distinct shift a thread holds makes an 8-byte table of
    the magnitudes' codes, and 4 codes at a time are looked up with one byte
    permute (prmt), their signs with another.
      %q = tile.e2m1_to_e4m3 %codes, %shift : !tile.frag<4x512xi8>, !tile.frag<4x1024xi32> -> !tile.frag<4x1024xf8E4M3FN>
  }];
  let arguments = (ins Tile_AnyFragment:$codes, Tile_AnyFragment:$shift);
  let results = (outs Tile_AnyFragment:$result);
  let assemblyFormat = "$codes `,` $shift attr-dict `:` qualified(type($codes)) `,` qualified(type($shift)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def Tile_PackE5M6Op : Tile_Op<"pack_e5m6", [Pure, Tile_LayoutRules<["hintOperandLayouts", "inferResultLayout", "requiredOperandLayout", "vectorMultiple"]>]> {
  let summary = "E5M6 codes of f32 elements, eight per three little-endian words";
  let description = [{
    Encodes each element to the 12-bit E5M6 code (the top 12 bits of an fp16,
    rounded as quant.md 2.4 prescribes: fp16 rounded toward zero, then a
    carry decided by the low 17 bits of the f32) and packs every 8 consecutive
    codes along the last dimension into 3 uint32 words, stored little-endian
    as 12 bytes. The result is i8 with 3/2 times the last dimension; its
    layout is the input's with the vector along that dimension times 3/2.
      %q = tile.pack_e5m6 %t : !tile.frag<1x1024xf32> -> !tile.frag<1x1536xi8>
  }];
  let arguments = (ins Tile_AnyFragment:$input);
  let results = (outs Tile_AnyFragment:$result);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def Tile_UnpackE5M6Op : Tile_Op<"unpack_e5m6", [Pure, Tile_LayoutRules<["hintOperandLayouts", "inferResultLayout", "requiredOperandLayout", "vectorMultiple"]>]> {
  let summary = "f32 values of E5M6 codes packed eight per three little-endian words";
  let description = [{
    The inverse of `tile.pack_e5m6`: every 12 bytes along the last dimension
    are 3 little-endian uint32 words holding 8 12-bit codes (the first code in
    the top bits of the first word); each code is the top 12 bits of an fp16
    and decodes exactly to f32. The result has 2/3 of the input's last
    dimension; its layout is the input's with the vector along that dimension
    times 2/3.
      %v = tile.unpack_e5m6 %q : !tile.frag<1x1536xi8> -> !tile.frag<1x1024xf32>
  }];
  let arguments = (ins Tile_AnyFragment:$input);
  let results = (outs Tile_AnyFragment:$result);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

#endif
