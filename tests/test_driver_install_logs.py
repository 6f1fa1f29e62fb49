"""What an NVIDIA driver install says on its own: the installer's failed load of nvidia.ko (a log symptom of
KVER-NVIDIA-KERNEL-COMBOS), a GPU operator driver container that finds no packages for the running kernel (another),
and its banner (the node's kernel, the driver it installs).

Real pastes are verbatim (trailing blanks of a console copy dropped), each under the public thread it comes from;
modelled inputs are marked so.
"""

from __future__ import annotations

import pytest

from corpus import body, capture_checks, fact, pasted
from stackaudit.engine.testing import run_checks
from stackaudit.facts.nvidia import NvidiaDriver
from stackaudit.facts.symptoms import LogSymptoms
from stackaudit.facts.system import KernelInfo

# --- nvidia-installer: "ERROR: Unable to load the kernel module 'nvidia.ko'" ---------------------------------------

LOAD_FAILED = [
    # https://github.com/Bumblebee-Project/Bumblebee/issues/932
    "ERROR: Unable to load the kernel module 'nvidia.ko'.  This happens most frequently when this kernel module was "
    "built against the wrong or improperly configured kernel sources, with a version of gcc that differs from the one "
    "used to build the target kernel, or if a driver such as rivafb, nvidiafb, or nouveau is present and prevents the "
    "NVIDIA kernel module from obtaining ownership of the NVIDIA graphics device(s), or no NVIDIA GPU installed in this "
    "system is supported by this NVIDIA Linux graphics driver release.\n\n"
    "Please see the log entries 'Kernel module load error' and 'Kernel messages' at the end of the file "
    "'/var/log/nvidia-installer.log' for more information.\n-> Kernel module load error: No such device\n",
    # https://github.com/emergingstack/es-dev-stack/issues/13
    "```\nERROR: Unable to load the kernel module 'nvidia.ko'.  This happens most frequently when this kernel module was "
    "built against\n       the wrong or improperly configured kernel sources, with a version of gcc that differs from "
    "the one used to build the\n       target kernel, or if a driver such as rivafb, nvidiafb, or nouveau is present "
    "and prevents the NVIDIA kernel module\n```\n",
    # https://github.com/shelmangroup/coreos-gpu-installer/issues/2
    "```\nERROR: Unable to load the kernel module 'nvidia.ko'.  This happens most\n       frequently when this kernel "
    "module was built against the wrong or\n       improperly configured kernel sources, with a version of gcc that\n"
    "```\n",
    # https://github.com/NVIDIA/gpu-operator/issues/8 (corpus 268)
    body("268"),
]


@pytest.mark.parametrize("text", LOAD_FAILED)
def test_the_installers_failed_load_proves_no_working_module(text: str) -> None:
    symptoms = fact(pasted(text), "log_symptoms")
    assert isinstance(symptoms, LogSymptoms)
    hits = symptoms.proving("KVER-NVIDIA-KERNEL-COMBOS")
    assert [h.symptom.name for h in hits] == ["nvidia-ko-load-failed"]
    assert hits[0].line.startswith("ERROR: Unable to load the kernel module 'nvidia.ko'")


def test_an_install_that_loaded_proves_nothing() -> None:
    # Modelled: the installer's lines of a run that built and loaded the module (its nvidia-drm warning included).
    text = ("WARNING: The nvidia-drm module will not be installed. As a result, DRM-KMS will not function with this "
            "installation of the NVIDIA driver.\n-> Kernel module compilation complete.\n"
            "-> Kernel module load check succeeded.\n")
    symptoms = fact(pasted(text), "log_symptoms")
    assert not isinstance(symptoms, LogSymptoms) or not symptoms.proving("KVER-NVIDIA-KERNEL-COMBOS")


# --- The GPU operator driver container: "Could not resolve Linux kernel version" -----------------------------------

UNRESOLVED = [
    # https://github.com/NVIDIA/gpu-operator/issues/155 (corpus 1364): CentOS 7.8 on 7.5's 3.10.0-862 kernel.
    body("1364"),
    # Modelled on https://github.com/NVIDIA/gpu-operator/issues/526 (GKE 5.15.0-1028-gke on Ubuntu 22.04): the
    # Ubuntu container's run, its banner and the failed look-up.
    "========== NVIDIA Software Installer ==========\n\n"
    "Starting installation of NVIDIA driver version 525.105.17 for Linux kernel version 5.15.0-1028-gke\n\n"
    "Stopping NVIDIA persistence daemon...\nUnloading NVIDIA driver kernel modules...\n"
    "Unmounting NVIDIA driver rootfs...\nChecking NVIDIA driver packages...\nUpdating the package cache...\n"
    "Resolving Linux kernel version...\nCould not resolve Linux kernel version\n",
]


@pytest.mark.parametrize("text", UNRESOLVED)
def test_a_driver_container_that_cannot_resolve_the_kernel_proves_no_module_for_it(text: str) -> None:
    host = pasted(text)
    symptoms = fact(host, "log_symptoms")
    assert isinstance(symptoms, LogSymptoms)
    assert [h.symptom.name for h in symptoms.proving("KVER-NVIDIA-KERNEL-COMBOS")] == ["driver-ctr-kernel-unresolved"]
    assert run_checks(host, ["KVER-NVIDIA-KERNEL-COMBOS"])["KVER-NVIDIA-KERNEL-COMBOS"].status == "issue"
    # The container exits without a driver on the node (the restart loop a pod listing shows): no pod gets a GPU.
    assert run_checks(host, ["CTR-GPU-ACCESS"])["CTR-GPU-ACCESS"].status == "issue"


def test_a_package_cache_the_pod_could_not_fetch_is_no_kernel_fault() -> None:
    # Modelled on a driver container whose pod had no DNS: apt could not fetch, then the same look-up failed.
    text = ("========== NVIDIA Software Installer ==========\n\n"
            "Starting installation of NVIDIA driver version 580.95.05 for Linux kernel version 5.15.0-153-generic\n\n"
            "Stopping NVIDIA persistence daemon...\nUnloading NVIDIA driver kernel modules...\n"
            "Checking NVIDIA driver packages...\nUpdating the package cache...\n"
            "W: Failed to fetch http://archive.ubuntu.com/ubuntu/dists/jammy/InRelease  Temporary failure resolving "
            "'archive.ubuntu.com'\nResolving Linux kernel version...\nCould not resolve Linux kernel version\n")
    symptoms = fact(pasted(text), "log_symptoms")
    assert not isinstance(symptoms, LogSymptoms) or not symptoms.proving("KVER-NVIDIA-KERNEL-COMBOS")


# --- The GPU operator driver container's banner ------------------------------------------------------------------

BANNERS = [
    # https://github.com/NVIDIA/gpu-operator/issues/193
    ("$ k logs -f nvidia-driver-daemonset-xmp2h\n\n========== NVIDIA Software Installer ==========\n\n"
     "Starting installation of NVIDIA driver version 450.80.02 for Linux kernel version 5.4.0-1024-aws\n\n"
     "Stopping NVIDIA persistence daemon...\nUnloading NVIDIA driver kernel modules...\nUnmounting NVIDIA driver rootfs...\n"
     "Checking NVIDIA driver packages...\nUpdating the package cache...\nResolving Linux kernel version...\n"
     "Proceeding with Linux kernel version 5.4.0-1024-aws\nInstalling Linux kernel headers...\n",
     "450.80.02", "5.4.0-1024-aws"),
    # https://github.com/NVIDIA/gpu-operator/issues/163
    ("========== NVIDIA Software Installer ==========                                          [42/1808]\n\n"
     "Starting installation of NVIDIA driver version 460.32.03 for Linux kernel version 4.15.0-136-generic\n\n"
     "Stopping NVIDIA persistence daemon...\nUnloading NVIDIA driver kernel modules...\nUnmounting NVIDIA driver rootfs...\n"
     "Checking NVIDIA driver packages...\n", "460.32.03", "4.15.0-136-generic"),
    # https://github.com/NVIDIA/gpu-operator/issues/8 (corpus 268)
    (body("268"), "418.40.04", "4.15.0-66-generic"),
]


@pytest.mark.parametrize(("text", "driver", "kernel"), BANNERS)
def test_the_driver_containers_banner_names_the_kernel_and_the_driver(text: str, driver: str, kernel: str) -> None:
    host = pasted(text)
    running = fact(host, "kernel")
    installing = fact(host, "nvidia_driver")
    assert isinstance(running, KernelInfo) and running.release == kernel
    assert isinstance(installing, NvidiaDriver) and installing.version == driver and not installing.loaded
    # Every one predates the open kernel modules (R515): no flavour to choose.
    assert run_checks(host, ["DRV-OPEN-MODULE"])["DRV-OPEN-MODULE"].status == "not-applicable"


def test_a_driver_with_an_open_flavour_is_not_settled_by_its_version() -> None:
    # Modelled: the banner of corpus 268 with an R535 driver: both flavours exist, the log names neither.
    text = body("268").replace("418.40.04", "535.104.05")
    status = run_checks(pasted(text), ["DRV-OPEN-MODULE"])["DRV-OPEN-MODULE"].status
    assert status == "unknown"


# --- GKE's driver installer on Container-Optimized OS, and modprobe's refusal of the nvidia module -----------------

def test_the_cos_installers_log_is_a_driver_install_log_2395_2396() -> None:
    # GoogleCloudPlatform/container-engine-accelerators#302 (corpus 2395), kubernetes/kubernetes#123491 (corpus 2396).
    from stackaudit.importers.recognition import recognise
    assert ("driver container log", 2, 10) in recognise(body("2395")).recognised
    assert ("driver container log", 2, 6) in recognise(body("2396")).recognised


def test_the_cos_installers_failed_insmod_proves_no_module_for_the_kernel_2395() -> None:
    checks = capture_checks("2395", "KVER-NVIDIA-KERNEL-COMBOS", "CTR-GPU-ACCESS", "DRV-XID")
    assert checks["KVER-NVIDIA-KERNEL-COMBOS"].status == "issue"
    assert "insmod /usr/local/nvidia/drivers/nvidia.ko" in checks["KVER-NVIDIA-KERNEL-COMBOS"].message
    assert checks["CTR-GPU-ACCESS"].status == "issue"
    assert checks["DRV-XID"].status == "unknown"  # insmod's exit status alone: the kernel log is not shown


def test_the_cos_installers_failed_verification_leaves_pods_without_a_gpu_2396() -> None:
    checks = capture_checks("2396", "CTR-GPU-ACCESS", "KVER-NVIDIA-KERNEL-COMBOS", "DRV-OPEN-MODULE")
    assert checks["CTR-GPU-ACCESS"].status == "issue" and "exit status 6" in checks["CTR-GPU-ACCESS"].message
    # The verification fails without saying at which step: no kernel fault, no flavour read.
    assert checks["KVER-NVIDIA-KERNEL-COMBOS"].status == "unknown"
    assert checks["DRV-OPEN-MODULE"].status == "unknown"


def test_a_cos_install_that_loaded_proves_nothing() -> None:
    # Modelled: the installer's run that linked, loaded and verified the driver.
    text = ("I0301 13:36:08.299982    3993 install.go:246] Installing GPU driver version 535.104.05\n"
            "I0301 13:36:18.196234    3993 installer.go:234] Done linking drivers\n"
            "I0301 13:36:18.843098    3993 installer.go:56] Verifying GPU driver installation\n"
            "I0301 13:36:19.174372    3993 install.go:190] Finished installing drivers.\n")
    host = pasted(text)
    symptoms = fact(host, "log_symptoms")
    assert not isinstance(symptoms, LogSymptoms) or not (symptoms.proving("KVER-NVIDIA-KERNEL-COMBOS")
                                                          or symptoms.proving("CTR-GPU-ACCESS"))


def test_modprobes_exec_format_error_proves_a_module_of_another_kernel_2394() -> None:
    # DDMAL/Rodan#1170 (corpus 2394): `modprobe: ERROR: could not insert 'nvidia': Exec format error`.
    kver = capture_checks("2394", "KVER-NVIDIA-KERNEL-COMBOS")["KVER-NVIDIA-KERNEL-COMBOS"]
    assert kver.status == "issue" and "Exec format error" in kver.message


@pytest.mark.parametrize("line", [
    # Modelled on the same command's other refusals, whose causes are not the kernel's: no GPU it drives, Secure Boot.
    "modprobe: ERROR: could not insert 'nvidia': No such device\n",
    "modprobe: ERROR: could not insert 'nvidia': Required key not available\n",
    # Another module's refusal.
    "modprobe: ERROR: could not insert 'nvidia_peermem': Invalid argument\n",
])
def test_modprobes_other_refusals_prove_no_kernel_mismatch(line: str) -> None:
    symptoms = fact(pasted(line), "log_symptoms")
    assert not isinstance(symptoms, LogSymptoms) or not symptoms.proving("KVER-NVIDIA-KERNEL-COMBOS")


def test_the_installer_patterns_are_bounded_on_a_long_line() -> None:
    import time

    from stackaudit.facts.nvidia_daemons import COS_INSTALLER_LINE
    from stackaudit.facts.symptoms import SYMPTOMS
    long = "I0301 13:36:08.299982    3993 install.go:246] " + "failed to verify GPU driver installation: " * 5000
    rows = [s.pattern for s in SYMPTOMS if s.name in ("nvidia-ko-load-failed", "nvidia-ko-wrong-kernel",
                                                        "gke-installer-failed")]
    assert len(rows) == 3
    t = time.monotonic()
    COS_INSTALLER_LINE.match(long)
    COS_INSTALLER_LINE.match("I0301 13:36:08.299982 " + " " * 200_000)
    for line in (long, "failed to run command `insmod " + "/a" * 100_000, "could not insert 'nvidia': " * 8000):
        for row in rows:
            row.search(line)
    assert time.monotonic() - t < 1.0


# --- the kernel's refusal of an NVIDIA module's symbols; nvidia-installer's failed build ----------------------------


@pytest.mark.parametrize(("prefix", "symptom"), [
    ("2467", "nvidia-ko-symbols"),  # nvidia_drm: Unknown symbol drm_client_setup (err -2), Raspberry Pi 5
    ("2468", "nvidia-ko-symbols"),  # nvidia: disagrees about version of symbol sme_me_mask, a driver container
    ("2473", "nvidia-ko-build-failed"),  # "Building kernel modules" failed, GCP V100
])
def test_a_module_the_kernel_refuses_or_the_installer_cannot_build_is_no_module_2467_2473(prefix: str,
                                                                                         symptom: str) -> None:
    symptoms = fact(pasted(body(prefix)), "log_symptoms")
    assert isinstance(symptoms, LogSymptoms)
    assert symptom in [h.symptom.name for h in symptoms.proving("KVER-NVIDIA-KERNEL-COMBOS")]
    assert capture_checks(prefix, "KVER-NVIDIA-KERNEL-COMBOS")["KVER-NVIDIA-KERNEL-COMBOS"].status == "issue"


@pytest.mark.parametrize("text", [
    # Modelled: nvidia_peermem's refusal is ib_core's symbols (IC/KVER-DMABUF), not the kernel pairing.
    "[   12.000000] nvidia_peermem: Unknown symbol ib_register_peer_memory_client (err -2)\n",
    # Modelled: another vendor's module refused.
    "[   12.000000] amdgpu: Unknown symbol drm_client_setup (err -2)\n",
    # Modelled: the installer's steps that succeeded, and another step's failure.
    "-> Kernel module compilation complete.\nERROR: An error occurred while performing the step: \"Installing "
    "'NVIDIA Accelerated Graphics Driver for Linux-x86_64' (525.125.06)\".\n",
])
def test_other_refusals_and_steps_prove_no_missing_module(text: str) -> None:
    symptoms = fact(pasted(text), "log_symptoms")
    assert not isinstance(symptoms, LogSymptoms) or not symptoms.proving("KVER-NVIDIA-KERNEL-COMBOS")


def test_the_module_refusal_patterns_are_bounded_on_a_long_line() -> None:
    import time

    from stackaudit.facts.symptoms import SYMPTOMS
    rows = [s.pattern for s in SYMPTOMS if s.name in ("nvidia-ko-symbols", "nvidia-ko-build-failed")]
    assert len(rows) == 2
    t = time.monotonic()
    for line in ("nvidia_drm: Unknown symbol " + "a" * 200_000, "nvidia: " * 25_000,
                 "An error occurred while performing the step: \"Building " + "x" * 200_000):
        for row in rows:
            row.search(line)
    assert time.monotonic() - t < 1.0
