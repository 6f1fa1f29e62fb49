"""KoboldCpp's printed arguments read as its command line (issue 28, corpus 1870).

KoboldCpp prints argparse's `Namespace(...)` of its arguments before it loads the model (koboldcpp.py main). Each
field is the flag of the same name, so the repr stands for `koboldcpp --gpulayers 33 --model X ...`
(facts/engine_command.koboldcpp_namespace). Real lines are corpus captures or quoted from the public threads named
beside them, as the stored copies hold them; counter-examples are modelled and say so.
"""

from __future__ import annotations

import warnings

import pytest

from corpus import body, fact, pasted
from stackaudit.facts.engine_command import EngineCommands, koboldcpp_namespace, namespace_end

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


# https://github.com/LostRuins/koboldcpp/issues/1368 (the issue body by aleksusklim, KoboldCpp on Windows, CPU only): the
# repr as stored, wrapped inside `sdconfig` (`sdcon` / `fig=None`); the stored excerpt ends at `usecublas=None,`, so its
# tail after that (`usemlock=False)`) is modelled.
NS_1368 = ("Namespace(admin=True, admindir='C:\\\\NN\\\\GPT', adminpassword='', analyze='', benchmark=None, "
           "blasbatchsize=512, blasthreads=16, chatcompletionsadapter=None, config=None, contextsize=2048, debugmode=1, "
           "draftamount=8, draftgpulayers=999, draftgpusplit=None, draftmodel=None, failsafe=False, flashattention=False, "
           "forceversion=0, foreground=False, gpulayers=0, highpriority=False, hordeconfig=None, hordegenlen=0, "
           "hordekey='', hordemaxctx=0, hordemodelname='', hordeworkername='', host='', ignoremissing=False, launch=True, "
           "lora=None, mmproj=None, model='', model_param='D:/GGUF/DeepSeek/DeepSeek-R1-UD-Q2_K_XL-00001-of-00005.gguf', "
           "moeexperts=-1, multiplayer=False, multiuser=1, noavx2=False, noblas=False, nocertify=False, "
           "nofastforward=False, nommap=False, nomodel=False, noshift=True, onready='', password=None, port=5001, "
           "port_param=5001, preloadstory=None, prompt='', promptlimit=100, quantkv=0, quiet=False, remotetunnel=False, "
           "ropeconfig=[0.0, 10000.0], sdclamped=0, sdclipg='', sdclipl='', sdcon\n"
           "fig=None, sdlora='', sdloramult=1.0, sdmodel='', sdnotile=False, sdquant=False, sdt5xxl='', sdthreads=7, "
           "sdvae='', sdvaeauto=False, showgui=False, skiplauncher=False, smartcontext=False, ssl=None, "
           "tensor_split=None, threads=8, ttsgpu=False, ttsmaxlen=4096, ttsmodel='', ttsthreads=0, ttswavtokenizer='', "
           "unpack='', useclblast=None, usecpu=True, usecublas=None, usemlock=False)")


def _wrapped(line: str, width: int) -> str:
    """The line as a terminal of `width` columns wraps it: cut every `width` characters, inside words too."""
    return "\n".join(line[k:k + width] for k in range(0, len(line), width))


@pytest.mark.parametrize(("text", "shown"), [
    (NS_1368, ("--model", "D:/GGUF/DeepSeek/DeepSeek-R1-UD-Q2_K_XL-00001-of-00005.gguf", "--threads", "8", "--usecpu")),
    # Modelled: 595's repr wrapped at 80 columns, a break inside `'lowvram'` and one inside `gpulayers`.
    (_wrapped(NS_595, 80), ("--gpulayers", "15", "--highpriority", "--usecublas", "lowvram", "--threads", "9")),
])
def test_wrapped_namespace_reads_to_its_closing_parenthesis(text: str, shown: tuple[str, ...]) -> None:
    commands = _commands("Initializing dynamic library: koboldcpp_cublas.dll\n==========\n" + text + "\n==========\n"
                         "Loading model: x.gguf\n")
    assert commands is not None
    (command,) = commands.commands
    assert command.argv[0] == "koboldcpp" and all(w in command.argv for w in shown)
    assert not command.cut


def test_namespace_end_is_bounded() -> None:
    """Modelled: a repr that closes on its line, one cut inside a quote with the log going on, and one that a blank
    line ends, each read as its first line alone; a wrapped one ends on its `)`, quoted parentheses inside it aside."""
    assert namespace_end([NS_595, "=========="], 0) == 1
    assert namespace_end([NS_788, "==========", "Loading model: ')' (ok)"], 0) == 1
    assert namespace_end(["Namespace(gpulayers=3, model_param='a", "", "b')"], 0) == 1
    assert namespace_end(["x", "Namespace(gpulayers=3, model_param='C:/M (1)/a", ".gguf', port=1)", "y"], 1) == 3
    assert namespace_end(["Namespace(gpulayers=3,"] + ["a=1,"] * 100 + [")"], 0) == 1


def test_a_windows_path_with_an_invalid_escape_is_read_without_a_warning() -> None:
    """Corpus 2058's `model_param='C:\\\\\\koboldcpp\\\\models...'`: an odd run of backslashes leaves `\\k`, an escape
    Python warns of when it parses the repr (on the user's terminal in 3.12); the field is read, silently."""
    line = (body("2058").split("Namespace(", 1)[1].split("\n", 1)[0])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        printed = koboldcpp_namespace("Namespace(" + line)
    assert [str(w.message) for w in caught] == []
    assert "--gpulayers 33" in printed and "koboldcpp" in printed


# The command typed above the printed arguments, as the threads show it: LostRuins/koboldcpp#595 (a Windows prompt,
# the Namespace NS_595), #1882 (KoboldCpp 1.104, `-ts 1 1`: two GPUs), #1223 (corpus 2132: the command on the fence's
# opening line, the Namespace cut before tensor_split).
TYPED_595 = ("f:\\koboldcpp>koboldcpp.exe --usecublas lowvram --contextsize 4096 --blasbatchsize 512 --gpulayers 15 "
             "--threads 9 --highpriority --model sonya-7b-x8-moe.Q6_K.gguf\n\nWelcome to KoboldCpp - Version 1.54\n"
             "Initializing dynamic library: koboldcpp_cublas.dll\n==========\n" + NS_595 + "\n==========\n")
TYPED_1882 = ("F:\\AI>F:\\AI\\koboldcpp.exe -m E:\\AI\\LLM\\Cydonia-24B-v4zk-Q8_0.gguf -fa --host 0.0.0.0 --port 5001 "
              "--usecuda -c 150000 -b 4096 -ngl 99 -ts 1 1\n***\nWelcome to KoboldCpp - Version 1.104\n"
              "Initializing dynamic library: koboldcpp_cublas.dll\n==========\n"
              "Namespace(admin=False, batchsize=4096, contextsize=150000, flashattention=True, gpulayers=99, "
              "host='0.0.0.0', model='', model_param='E:\\\\AI\\\\LLM\\\\Cydonia-24B-v4zk-Q8_0.gguf', port=5001, "
              "port_param=5001, tensor_split=[1.0, 1.0], threads=15, usecuda=['normal', 'mmq'])\n")


def test_printed_arguments_under_a_typed_command_are_its_echo() -> None:
    for text, first in ((TYPED_595, "--usecublas"), (TYPED_1882, "-m")):
        commands = fact(pasted(text), "engine_commands")
        assert isinstance(commands, EngineCommands)
        assert [c.argv[1] for c in commands.commands] == [first]
    # Corpus 2132: the typed line's `--tensor_split 1 0` decides, not the echo cut before its tensor_split field.
    commands = fact(pasted(body("2132")), "engine_commands")
    assert isinstance(commands, EngineCommands)
    assert [c.one_gpu for c in commands.commands] == ["--tensor-split 1,0 puts every layer on one device"]
    # Modelled counter-example: the printed arguments alone are still the command.
    alone = fact(pasted("==========\n" + NS_595 + "\n==========\n"), "engine_commands")
    assert isinstance(alone, EngineCommands) and [c.argv[0] for c in alone.commands] == ["koboldcpp"]
