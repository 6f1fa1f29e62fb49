"""A compose file whose YAML stops at a line pasted one column off is read above that line, as an excerpt.

Users paste compose files with one key misindented (an uncommented `deploy:` block).
`docker compose` refuses them, and so did the reader, which left the whole paste "nothing recognisable".
The lines above the error are read; nothing is concluded from what the cut left out.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks

# Real: SecureAI-Tools/SecureAI-Tools#9 (2023-12-01), the issue body: `deploy:` uncommented one column off.
SECUREAI_9 = """\
version: "3.8"

services:
  web:
    image: public.ecr.aws/d8f2p0h3/secure-ai-tools:latest
    platform: linux/amd64
    volumes:
      - ./web:/app/volume
    env_file:
      - .env
    environment:
      - INFERENCE_SERVER=http://inference:11434/
    ports:
      - 28669:28669
    command: sh -c "cd /app && sh tools/db-migrate-and-seed.sh ${DATABASE_FILE} && node server.js"
    depends_on:
      - inference

  inference:
    image: ollama/ollama:latest
    volumes:
      - ./inference:/root/.ollama
    #
    # Uncomment for Linux machines with Nvidia GPUs
    # Based on https://docs.docker.com/compose/gpu-support/
    # Requires Nvidia container toolkit: https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/install-guide.html#installation
    #
     deploy:
       resources:
         reservations:
           devices:
             - driver: nvidia
               count: 'all'
               capabilities: [gpu]
"""

def test_corpus_394_is_read_above_its_misindented_deploy() -> None:
    got = capture_checks("394", "CTR-SHM-SIZE", "CTR-MEMLOCK", "RT-CUDA-GRAPHS", "CTR-GPU-ACCESS")
    assert got["CTR-SHM-SIZE"].status == "ok"  # shm_size: '10.24gb', above the cut
    assert got["CTR-MEMLOCK"].status == "ok"  # memlock: -1
    assert got["RT-CUDA-GRAPHS"].status == "issue"  # --enforce-eager in the service's command
    # The GPU reservation sits below the cut; CUDA_VISIBLE_DEVICES=0 above it already lets the container see one
    # GPU for a TP 4 engine (r29c's ranks bound): the issue rests on the lines read, not on the reservation.
    gpu = got["CTR-GPU-ACCESS"]
    assert gpu.status == "issue" and "CUDA_VISIBLE_DEVICES=0" in gpu.message and "device_ids" not in gpu.message


def test_a_deploy_block_one_column_off_is_read_above_it(tmp_path: Path) -> None:
    got = paste_checks(tmp_path, SECUREAI_9, "CTR-GPU-ACCESS", "CTR-SHM-SIZE")
    assert all(r.status != "not-recognised" for r in got.values())
    # Modelled counter-reading: the lost `deploy:` asked for every GPU, so "no GPU requested" would be wrong.
    assert got["CTR-GPU-ACCESS"].status not in ("issue", "ok")


def test_a_compose_that_parses_is_still_read_whole(tmp_path: Path) -> None:
    # Modelled: the SecureAI file with `deploy:` at its column parses and its GPU request is read.
    fixed = SECUREAI_9.replace("\n     deploy:", "\n    deploy:").replace("\n       ", "\n      ")
    got = paste_checks(tmp_path, fixed, "CTR-GPU-ACCESS")
    # Read whole: its request is named (a request alone shows no GPU inside: unknown, issue 28 h121c).
    assert "serving containers request GPUs:" in got["CTR-GPU-ACCESS"].message
