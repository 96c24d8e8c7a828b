# cmake -DIN=file.ptx -DOUT=file.cpp -DNAME=symbol -P embed_ptx.cmake
# Writes `extern const char NAME[] = "<PTX text>";` so a binary can load it.
file(READ ${IN} text)
file(WRITE ${OUT} "extern const char ${NAME}[] = R\"tkptx(${text})tkptx\";\n")
