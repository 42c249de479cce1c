"""A QNN delegate's ``qnn_compile_spec`` compile spec -> readable (key, value) pairs.

The value is a ``QnnExecuTorchOptions`` flatbuffer (no file identifier): executorch 1.5.1 writes it with
``backends/qualcomm/serialization/qc_schema_serialize.py`` ``option_to_flatbuffer`` from the dataclasses
of ``qc_schema.py``, after the schema ``backends/qualcomm/serialization/qc_compiler_spec.fbs``; the
runtime reads it in ``QnnExecuTorchBackend::init`` (``GetQnnExecuTorchOptions``). The slots and enum
names below are that schema's declaration order (``tests/test_backend_payloads.py`` checks them against
the wheel's ``.fbs`` and decodes what executorch's own serializer writes). Read with our bounds-checked
:class:`~.flatbuf.FlatReader`: a damaged value is reported, never raised.
"""

from __future__ import annotations

from explorer.errors import PteFormatError
from explorer.format.flatbuf import FlatReader, require_prefix, root_offset

__all__ = ["decode_qnn_options", "QNN_SPEC_KEY", "SLOTS", "ENUMS"]

QNN_SPEC_KEY = "qnn_compile_spec"  # backends/qualcomm/utils/constants.py QCOM_QNN_COMPILE_SPEC

# table -> field -> slot (declaration order in qc_compiler_spec.fbs)
SLOTS: dict[str, dict[str, int]] = {
    "QnnExecuTorchOptions": {name: i for i, name in enumerate((
        "soc_info", "backend_options", "library_path", "log_level", "online_prepare", "dump_intermediate_outputs",
        "profile_level", "shared_buffer", "is_from_context_binary", "saver", "saver_output_dir",
        "op_package_options", "use_mha2sha"))},
    "SocInfo": {"soc_model": 0, "htp_info": 1, "lpai_info": 2},
    "HtpInfo": {"htp_arch": 0, "vtcm_size_in_mb": 1},
    "QnnExecuTorchBackendOptions": {"backend_type": 0, "htp_options": 1, "gpu_options": 2, "lpai_options": 3},
    "QnnExecuTorchHtpBackendOptions": {name: i for i, name in enumerate((
        "max_sf_buf_size", "performance_mode", "precision", "pd_session", "use_conv_hmx", "use_dlbc",
        "use_fold_relu", "use_multi_contexts", "use_weight_sharing", "use_slc_allocator"))},
    "QnnExecuTorchGpuBackendOptions": {name: i for i, name in enumerate((
        "performance_mode", "precision", "use_memory_optimizations", "use_node_optimizations",
        "use_queue_recording", "use_weight_sharing"))},
}

ENUMS: dict[str, dict[int, str]] = {
    "QcomChipset": {0: "UNKNOWN_SM", 39: "SA8295", 72: "SA8797", 60: "SC8380XP", 30: "SM8350", 36: "SM8450",
                    42: "SM8475", 43: "SM8550", 57: "SM8650", 69: "SM8750", 87: "SM8850", 46: "SSG2115P",
                    58: "SSG2125P", 45: "SXR1230P", 53: "SXR2230P", 75: "SXR2330P", 77: "QCS9100", 95: "SAR2230P",
                    52: "SA8255", 96: "SW6100", 93: "QCM6490", 97: "SM8845"},
    "HtpArch": {0: "NONE", 68: "V68", 69: "V69", 73: "V73", 75: "V75", 79: "V79", 81: "V81"},
    "QnnExecuTorchBackendType": dict(enumerate(("kUndefinedBackend", "kGpuBackend", "kHtpBackend", "kDspBackend",
                                                "kLpaiBackend"))),
    "QnnExecuTorchHtpPerformanceMode": dict(enumerate((
        "kHtpDefault", "kHtpSustainedHighPerformance", "kHtpBurst", "kHtpHighPerformance", "kHtpPowerSaver",
        "kHtpLowPowerSaver", "kHtpHighPowerSaver", "kHtpLowBalanced", "kHtpBalanced"))),
    "QnnExecuTorchHtpPrecision": {0: "kHtpQuantized", 1: "kHtpFp16"},
    "QnnExecuTorchHtpPdSession": {0: "kHtpUnsignedPd", 1: "kHtpSignedPd"},
    "QnnExecuTorchGpuPerformanceMode": dict(enumerate(("kGpuPerfHintHigh", "kGpuPerfHintNormal", "kGpuPerfHintLow"))),
    "QnnExecuTorchGpuPrecision": dict(enumerate(("kGpuPrecisionFp32", "kGpuPrecisionFp16", "kGpuPrecisionHybrid",
                                                 "kGpuPrecisionUserProvided"))),
    "QnnExecuTorchLogLevel": dict(enumerate(("kLogOff", "kLogLevelError", "kLogLevelWarn", "kLogLevelInfo",
                                             "kLogLevelVerbose", "kLogLevelDebug"))),
    "QnnExecuTorchProfileLevel": dict(enumerate(("kProfileOff", "kProfileBasic", "kProfileDetailed",
                                                 "kProfileOptrace"))),
}


def _enum(name: str, value: int) -> str:
    return ENUMS[name].get(value, f"unknown({value})")


def decode_qnn_options(value: bytes) -> tuple[tuple[str, str], ...]:
    """``(key, text)`` pairs for the options that matter when reading a QNN export: SoC, HTP arch, backend
    and its main options, log/profile levels, flags that are on. PteFormatError when the bytes are not a
    readable ``QnnExecuTorchOptions``."""
    size = len(value)
    require_prefix(size)  # a root offset and 4 more bytes at least (a table needs more)
    r = FlatReader(value, size)
    root = root_offset(value, size)
    S = SLOTS
    out: list[tuple[str, str]] = []
    vt = r.table(root)
    top = S["QnnExecuTorchOptions"]
    soc = r.ref(root, vt, top["soc_info"])
    if soc is not None:
        svt = r.table(soc)
        out.append(("soc", _enum("QcomChipset", r.field(soc, svt, S["SocInfo"]["soc_model"], "i"))))
        htp = r.ref(soc, svt, S["SocInfo"]["htp_info"])
        if htp is not None:
            hvt = r.table(htp)
            out.append(("htp_arch", _enum("HtpArch", r.field(htp, hvt, S["HtpInfo"]["htp_arch"], "i"))))
            out.append(("vtcm_size_in_mb", str(r.field(htp, hvt, S["HtpInfo"]["vtcm_size_in_mb"], "I"))))
    backend = r.ref(root, vt, top["backend_options"])
    if backend is not None:
        bvt = r.table(backend)
        bo = S["QnnExecuTorchBackendOptions"]
        out.append(("backend_type", _enum("QnnExecuTorchBackendType", r.field(backend, bvt, bo["backend_type"], "i"))))
        htp_opts = r.ref(backend, bvt, bo["htp_options"])
        if htp_opts is not None:
            ovt = r.table(htp_opts)
            ho = S["QnnExecuTorchHtpBackendOptions"]
            out.append(("htp_performance_mode", _enum("QnnExecuTorchHtpPerformanceMode",
                                                      r.field(htp_opts, ovt, ho["performance_mode"], "i"))))
            out.append(("htp_precision", _enum("QnnExecuTorchHtpPrecision", r.field(htp_opts, ovt, ho["precision"], "i"))))
            out.append(("htp_pd_session", _enum("QnnExecuTorchHtpPdSession",
                                                r.field(htp_opts, ovt, ho["pd_session"], "i"))))
            flags = [f for f in ("use_conv_hmx", "use_dlbc", "use_fold_relu", "use_multi_contexts",
                                 "use_weight_sharing", "use_slc_allocator") if r.field(htp_opts, ovt, ho[f], "?")]
            out.append(("htp_flags", ", ".join(flags) or "none"))
        gpu_opts = r.ref(backend, bvt, bo["gpu_options"])
        if gpu_opts is not None:
            gvt = r.table(gpu_opts)
            go = S["QnnExecuTorchGpuBackendOptions"]
            out.append(("gpu_performance_mode", _enum("QnnExecuTorchGpuPerformanceMode",
                                                      r.field(gpu_opts, gvt, go["performance_mode"], "i"))))
            out.append(("gpu_precision", _enum("QnnExecuTorchGpuPrecision", r.field(gpu_opts, gvt, go["precision"], "i"))))
    out.append(("log_level", _enum("QnnExecuTorchLogLevel", r.field(root, vt, top["log_level"], "i"))))
    out.append(("profile_level", _enum("QnnExecuTorchProfileLevel", r.field(root, vt, top["profile_level"], "i"))))
    on = [f for f in ("online_prepare", "dump_intermediate_outputs", "shared_buffer", "is_from_context_binary",
                      "saver", "use_mha2sha") if r.field(root, vt, top[f], "?")]
    out.append(("flags", ", ".join(on) or "none"))
    for key in ("library_path", "saver_output_dir"):
        text = r.string(r.ref(root, vt, top[key]))
        if text:
            out.append((key, text))
    return tuple(out)


def qnn_spec_pairs(key: str, value: bytes) -> tuple[tuple[str, str], ...] | None:
    """The decoded pairs, keyed ``qnn_compile_spec.<option>``; None when the value does not decode (the
    caller then shows it as bytes)."""
    try:
        return tuple((f"{key}.{k}", v) for k, v in decode_qnn_options(value))
    except PteFormatError:
        return None
