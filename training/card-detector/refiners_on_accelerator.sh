#!/bin/bash
# The corner refiner's candidates RA and RB of 2026-12-06 (docs/card-detector.md, "Tried and not kept ... the refiner
# trained on the accelerator"): both at once, 7 data workers each, their steps set by a probe of both (PROBE seconds)
# to about RUN seconds. Run from the repository root on the accelerator, `.gpu` packed by pack_for_accelerator.py
# and carried: PROBE=30 RUN=330 bash training/card-detector/refiners_on_accelerator.sh  (writes under $OUT)
set -u
export LOUPE_SHARED=.gpu/shared PYTHONUNBUFFERED=1 OMP_NUM_THREADS=1
nvidia-smi -L; nproc; python3 -c "import torch,cv2;print(torch.__version__, torch.cuda.is_available())"
COMMON="--backgrounds .gpu/bg --labels training/card-detector/train-corners.json --device cuda --workers 7 --batch 32 --real-share 0.6 --slab-share 0.25 --real-aug strong --data-start 700000 --dev-every 100000000"
A="--init-onnx models/card-corners.onnx --lr 1e-3"
B="--width 2 --lr 3e-3"
python3 training/card-detector/train_corners.py $COMMON $A --steps 100000 --max-seconds ${PROBE:-35} --out /tmp/pa > $OUT/probe-a.log 2>&1 &
python3 training/card-detector/train_corners.py $COMMON $B --steps 100000 --max-seconds ${PROBE:-35} --out /tmp/pb > $OUT/probe-b.log 2>&1 &
wait
rate() { python3 -c "
import json,sys
r=[json.loads(l) for l in open('$1') if l.startswith('{\"step')]
if len(r) < 2: print(${FALLBACK:-3000}); sys.exit()
a,b=r[len(r)//2-1 if len(r)>2 else 0],r[-1]
print(int((b['step']-a['step'])/(b['elapsed_s']-a['elapsed_s'])*${RUN:-380}*0.92))"; }
SA=$(rate /tmp/pa/train-log.jsonl); SB=$(rate /tmp/pb/train-log.jsonl)
echo "steps A $SA B $SB"
python3 training/card-detector/train_corners.py $COMMON $A --steps $SA --max-seconds $((${RUN:-380}+30)) --out $OUT/ra > $OUT/ra.log 2>&1 &
python3 training/card-detector/train_corners.py $COMMON $B --steps $SB --max-seconds $((${RUN:-380}+30)) --out $OUT/rb > $OUT/rb.log 2>&1 &
wait
tail -n 3 $OUT/ra.log $OUT/rb.log
ls -la $OUT/ra $OUT/rb
