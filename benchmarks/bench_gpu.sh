#!/usr/bin/env bash
# The trainers on a GPU, each part timed: GenEnv's launch script on the toy dataset (tiny models), PERPO with a
# model of Qwen2.5-0.5B's shape (random weights; no download needed) stopped and resumed, and the CPU demo.
#
#   bash benchmarks/bench_gpu.sh [OUT_DIR]
#
# DEVICE=cuda (default), PARTS="genenv perpo demo" (default), SHAPE=qwen2.5-0.5b (default), qwen2.5-1.5b or tiny.
#
# Each part runs on even if another fails; the last line of each says its wall time and exit status.
set -uo pipefail
OUT=${1:-gpu-bench}
DEVICE=${DEVICE:-cuda}
PARTS=${PARTS:-genenv perpo demo}
SHAPE=${SHAPE:-qwen2.5-0.5b}
PY=${PYTHON:-python3}
mkdir -p "$OUT"

timed() {  # name, command...: run it, log to OUT/name.log, print its wall time
    local name=$1 start=$SECONDS
    shift
    "$@" >"$OUT/$name.log" 2>&1
    local status=$?
    echo "$name: $((SECONDS - start)) s, exit $status"
}

for part in $PARTS; do
    case $part in
    genenv)
        $PY examples/genenv/toy_arithmetic.py "$OUT/toy" >/dev/null
        TRAIN_DATA=$OUT/toy/train.parquet VAL_DATA=$OUT/toy/val.parquet OUTPUT_DIR=$OUT/genenv PYTHON=$PY \
            timed genenv bash scripts/run_genenv.sh --model tiny --env-model tiny trainer.total_epochs=1 \
            data.train_batch_size=8 actor_rollout_ref.rollout.n=4 actor_rollout_ref.actor.ppo_mini_batch_size=8 \
            data.max_prompt_length=512 data.max_response_length=16 data.val_batch_size=16 trainer.test_freq=4 \
            --env_generate_max_length 64 --device "$DEVICE"
        ;;
    perpo)
        model=tiny
        if [[ $SHAPE != tiny ]]; then
            model=$OUT/$SHAPE
            $PY benchmarks/from_config_model.py "$model" --shape "$SHAPE" >/dev/null 2>&1
        fi
        run=(-m gymverse.cli train --pretrain "$model" --device "$DEVICE" --sft_episodes 0
            --env_id "gymverse:GridCourier|gymverse:MailSorter" --generate_max_length 32 --eval_n 8
            --eval_steps 2 --save_steps 2 --save_path "$OUT" --wb_run_name perpo)
        timed perpo-4-steps $PY "${run[@]}" --max_train 192
        timed perpo-resumed-to-6 $PY "${run[@]}" --max_train 288 --resume
        ;;
    demo)
        timed demo $PY examples/train_oat/train_oat_perpo.py --device "$DEVICE" --save_path "$OUT"
        ;;
    esac
done
