# Writes the tuning table (IN) into a C++ source (OUT) as kTuningTable.
file(READ ${IN} text)
file(WRITE ${OUT}.tmp "// Generated from kernels/tuning/table.tsv.\nnamespace tk::kernels {\nextern const char *const kTuningTable;\nconst char *const kTuningTable = R\"tktable(${text})tktable\";\n}\n")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
