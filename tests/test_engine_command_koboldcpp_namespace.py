"""KoboldCpp's printed arguments read as its command line (issue 28, corpus 1870).

KoboldCpp prints argparse's `Namespace(...)` of its arguments before it loads the model (koboldcpp.py main). Each
field is the flag of the same name, so the repr stands for `koboldcpp --gpulayers 33 --model X ...`
(facts/engine_command.koboldcpp_namespace). Real lines are corpus captures or quoted from the public threads named
beside them, as the stored copies hold them; counter-examples are modelled and say so.
"""

from __future__ import annotations

import pytest

from corpus import body, fact, pasted
from stackaudit.facts.engine_command import EngineCommands, koboldcpp_namespace

# https://github.com/LostRuins/koboldcpp/issues/595 (comment by Vladonai, 2024-01-02): KoboldCpp 1.54 on Windows.
NS_595 = ("Namespace(bantokens=None, blasbatchsize=512, blasthreads=9, config=None, contextsize=4096, debugmode=0, "
          "forceversion=0, foreground=False, gpulayers=15, highpriority=True, hordeconfig=None, host='', launch=False, "
          "lora=None, model='sonya-7b-x8-moe.Q6_K.gguf', model_param='sonya-7b-x8-moe.Q6_K.gguf', multiuser=0, "
          "noavx2=False, noblas=False, nommap=False, noshift=False, onready='', port=5001, port_param=5001, "
          "preloadstory='', quiet=False, remotetunnel=False, ropeconfig=[0.0, 10000.0], skiplauncher=False, "
          "smartcontext=False, ssl=None, tensor_split=None, threads=9, useclblast=None, usecublas=['lowvram'], "
          "usemlock=False)")
# https://github.com/LostRuins/koboldcpp/issues/788 (the issue body by Alihkhawaher, 2024-04-17): a Windows path with
# escaped backslashes; the stored excerpt ends inside `usecublas=['`.
NS_788 = ("Namespace(bantokens=None, benchmark=None, blasbatchsize=512, blasthreads=17, chatcompletionsadapter=None, "
          "config=None, contextsize=32768, debugmode=0, forceversion=0, foreground=False, gpulayers=200, "
          "highpriority=False, hordeconfig=None, host='', ignoremissing=False, launch=True, lora=None, "
          "mmproj='C:\\\\AI\\\\Text\\\\koboldcpp\\\\mistral-7b-mmproj-v1.5-Q4_1.gguf', model=None, "
          "model_param='C:/AI/Weights/ML Models (LM Studio)/macadeliccc/laser-dolphin-mixtral-2x7b-dpo-GGUF/"
          "laser-dolphin-mixtral-2x7b-dpo.q6_k.gguf', multiuser=0, noavx2=False, noblas=False, nocertify=False, "
          "nommap=False, noshift=False, onready='', password=None, port=5001, port_param=5000, preloadstory=None, "
          "quiet=False, remotetunnel=False, ropeconfig=[0.0, 10000.0], sdconfig=None, skiplauncher=False, "
          "smartcontext=False, ssl=None, tensor_split=None, threads=17, useclblast=None, usecublas=['")
# https://github.com/LostRuins/koboldcpp/issues/1846 (roj234, KoboldCpp 1.101.1): the newer field order, Vulkan.
NS_1846 = ("Namespace(model=[], model_param=None, port=5001, port_param=5001, host='', launch=False, config=None, "
           "threads=8, usecuda=None, usevulkan=[0], useclblast=None, usecpu=False, contextsize=8192, gpulayers=-1, "
           "tensor_split=None, version=False, analyze='', maingpu=-1, batchsize=512, blasthreads=0, lora=None, "
           "loramult=1.0, noshift=False, nofastforward=False, useswa=False, ropeconfig=[0.0, 10000.0], "
           "overridenativecontext=0, usemmap=True, usemlock=False, noavx2=False, failsafe=False, debugmode=0, "
           "onready='', benchmark=None, prompt='', cli=False, genlimit=0, multiuser=1, multiplayer=False, "
           "websearch=False, remotetunnel=False, highpriority=False, foreground=False, preloadstory='', "
           "savedatafile='', quiet=True, ssl=None, nocertify=False, mmproj='', mmprojcpu=False, visionmaxres=1024, "
           "draftmodel='', draftamount=8, draftgpulayers=999, draftgpusplit=None, password=None, ratelimit=0, "
           "ignoremissing=False, chatcompletionsadapter='AutoGuess', flashattention=False, lowvram=False, quantkv=0, "
           "forceversion=0,")


def _commands(text: str) -> EngineCommands | None:
    value = fact(pasted(text), "engine_commands")
    return value if isinstance(value, EngineCommands) else None


@pytest.mark.parametrize(("line", "shown", "cut"), [
    (NS_595, ("--gpulayers", "15", "--highpriority", "--model", "sonya-7b-x8-moe.Q6_K.gguf", "--usecublas", "lowvram"),
     False),
    (NS_788, ("--contextsize", "32768", "--gpulayers", "200", "--launch",
              "--mmproj", "C:\\AI\\Text\\koboldcpp\\mistral-7b-mmproj-v1.5-Q4_1.gguf", "--port", "5000"), True),
    (NS_1846, ("--usevulkan", "0", "--contextsize", "8192", "--gpulayers", "-1", "--usemmap"), True),
])
def test_koboldcpp_namespace_is_its_command(line: str, shown: tuple[str, ...], cut: bool) -> None:
    commands = _commands("Initializing dynamic library: koboldcpp_cublas.dll\n==========\n" + line + "\n==========\n")
    assert commands is not None
    (command,) = commands.commands
    assert command.engine == "llamacpp"
    assert command.argv[0] == "koboldcpp"
    assert all(w in command.argv for w in shown)
    # A field left at nothing (None, False, '', []) is no flag; a field the paste cuts inside is not read.
    assert "--tensor_split" not in command.argv and "--useclblast" not in command.argv
    assert command.cut is cut


def test_corpus_1870_cut_namespace_keeps_its_whole_fields() -> None:
    """Corpus 1870: the repr the stored excerpt cuts inside `nofastforward=Fal` keeps the fields before it."""
    line = body("1870").splitlines()[12]
    printed = koboldcpp_namespace(line)
    assert printed.startswith("koboldcpp --benchmark stdout ")
    assert "--gpulayers 33" in printed and "--model C:/Users/user/.lmstudio/models/" in printed
    assert "nofastforward" not in printed and printed.endswith(" \\")


def test_other_namespaces_are_no_koboldcpp_command() -> None:
    """Modelled: vLLM's `args: Namespace(...)` log line and a bare repr without KoboldCpp's fields are no command."""
    assert koboldcpp_namespace("INFO 05-06 api_server.py:1 args: Namespace(model='m', gpulayers=3)") == ""
    assert koboldcpp_namespace("Namespace(model='m', port=8000, tensor_parallel_size=2)") == ""
    assert _commands("Namespace(model='m', port=8000, tensor_parallel_size=2)\n") is None
