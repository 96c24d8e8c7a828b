# Sourced: exports TK_PTXAS when ptxas is not on PATH but installed elsewhere.
if [[ -z ${TK_PTXAS:-} ]] && ! command -v ptxas >/dev/null; then
  for p in /usr/local/cuda/bin/ptxas $(python3 -c 'import nvidia, os; print(os.path.join(nvidia.__path__[0], "cu13/bin/ptxas"))' 2>/dev/null); do
    if [[ -x $p ]]; then export TK_PTXAS=$p; break; fi
  done
fi
