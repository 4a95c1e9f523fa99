"""The `maeri` Python module (python/maeri_module.cpp): load, map, codegen, functional_check and verify (the RTL, in a
child process) return plain dicts and lists
with the values the C++ tests check (AlexNet's grouped MACs, Sandler et al.'s 300 M for MobileNetV2), heuristic
searches bounded by the exhaustive optimum, an image
that starts with the format's magic, a golden-model run that is bit-exact and agrees with the model, and an ONNX
model's dynamic batch given by input_shapes= and batch= (ValueError naming the input when wrong)."""
import os
import sys

import maeri

CONFIGS = os.path.join(os.environ["MAERI_SOURCE_DIR"], "configs")
HW64 = os.path.join(CONFIGS, "hardware", "maeri-64.yaml")
TINY = os.path.join(CONFIGS, "workloads", "tiny.yaml")


def test_load():
    alexnet = maeri.load(os.path.join(CONFIGS, "workloads", "alexnet.yaml"))
    assert alexnet["total_macs"] == 724406816, alexnet["total_macs"]
    conv2 = alexnet["layers"][1]
    assert (conv2["name"], conv2["groups"], conv2["macs"]) == ("conv2", 2, 256 * 48 * 25 * 27 * 27)
    mobilenet = maeri.load(os.path.join(CONFIGS, "workloads", "mobilenetv2.yaml"))
    assert mobilenet["total_macs"] == 300774272


def test_map():
    layers = maeri.map(HW64, TINY, objective="energy", top=2, layer="conv1")
    assert len(layers) == 1 and layers[0]["layer"]["name"] == "conv1"
    best = layers[0]["best"]
    assert len(best) == 2 and best[0]["energy_pj"]["total"] <= best[1]["energy_pj"]["total"]


def edp(report):
    return report["cycles"]["total"] * report["energy_pj"]["total"]


def test_map_search():
    # The exhaustive optimum bounds every heuristic result (both are the model's exact-traffic costs); the same
    # seed gives the same run; the options are checked like `maeri map --search`'s.
    for layer in ("conv3_1x1", "fc"):
        optimum = edp(maeri.map(HW64, TINY, objective="edp", layer=layer)[0]["best"][0])
        runs = [maeri.map(HW64, TINY, objective="edp", layer=layer, search=method, budget=150, seed=4)[0]
                for method in ("sa", "sa", "ga", "random")]
        assert edp(runs[0]["best"][0]) == edp(runs[1]["best"][0]), runs[:2]
        for run in runs:
            assert edp(run["best"][0]) >= optimum, (layer, run)
            assert "150 evaluations" in run["search"], run["search"]
    for bad, field in ((dict(search="nope"), "search"), (dict(search="surrogate"), "model"),
                       (dict(search="sa", warm_start="sideways"), "warm-start"), (dict(warm_start="similar"), "warm-start")):
        try:
            maeri.map(HW64, TINY, **bad)
        except ValueError as error:
            assert "field '" + field + "'" in str(error), (bad, str(error))
        else:
            raise AssertionError("bad search options must raise ValueError: " + repr(bad))


def test_codegen():
    images = maeri.codegen(HW64, TINY)
    assert [image["layer"] for image in images] == ["conv1", "conv2", "conv3_1x1", "fc"]
    assert all(image["image"].startswith(b"MAERIIMG") for image in images)
    assert "LOAD_WEIGHTS" in images[0]["disassembly"]


def test_functional_check():
    workload = os.path.join(os.environ["MAERI_BINARY_DIR"], "python-kinds.yaml")
    with open(workload, "w") as out:
        out.write("kind: workload\nname: kinds\nlayers:\n"
                  "  - {name: dw, type: conv, K: 8, C: 8, R: 3, S: 3, X: 6, Y: 6, stride: [2, 1], padding: 1, groups: 8}\n"
                  "  - {name: atrous, type: conv, K: 4, C: 3, R: 3, S: 3, X: 7, Y: 7, stride: 1, padding: 2, dilation: 2}\n"
                  "  - {name: scores, type: gemm, M: 6, K: 8, N: 5, batch: 2}\n")
    runs = maeri.functional_check(HW64, workload, seed=5)
    assert [run["layer"] for run in runs] == ["dw", "atrous", "scores"]
    for run in runs:
        assert run["bit_exact"] and run["model_agrees"], run


def test_onnx_input_sizes():
    # dynamic.onnx (tests/cli/make_onnx_models.cpp): one 3x3 conv of 4 filters on an input "x" [batch, 3, 8, 8],
    # the batch symbolic: 4 * 3 * 3 * 3 * 6 * 6 = 3888 MACs per image.
    model = os.path.join(os.environ["MAERI_ONNX_MODELS"], "dynamic.onnx")
    try:
        maeri.load(model)
    except ValueError as error:
        assert "--input-shape" in str(error) and "--batch" in str(error) and "x [" in str(error), error
    else:
        raise AssertionError("a dynamic batch without sizes must raise ValueError")
    by_batch = maeri.load(model, batch=2)
    assert by_batch["total_macs"] == 2 * 3888, by_batch["total_macs"]
    assert by_batch["layers"][0]["N"] == 2
    by_shape = maeri.load(model, input_shapes={"x": [3, 3, 8, 8]})
    assert by_shape["total_macs"] == 3 * 3888, by_shape["total_macs"]
    # The keyword arguments reach every function that reads a model.
    mapped = maeri.map(HW64, model, batch=2)
    assert mapped[0]["layer"]["N"] == 2, mapped[0]["layer"]
    assert len(maeri.codegen(HW64, model, input_shapes={"x": [1, 3, 8, 8]})) == 1
    for bad, words in (({"input_shapes": {"y": [1, 3, 8, 8]}}, ["'y'", "its inputs: x"]),
                       ({"input_shapes": {"x": [1, 3, 8]}}, ["rank 4", "3 sizes"]),
                       ({"input_shapes": {"x": [1, 4, 8, 8]}}, ["fixed at 3"]),
                       ({"input_shapes": {"x": [0, 3, 8, 8]}}, ["x=0,3,8,8"]),
                       ({"batch": -1}, ["batch -1"])):
        try:
            maeri.load(model, **bad)
        except ValueError as error:
            assert all(word in str(error) for word in words), (bad, str(error))
        else:
            raise AssertionError(f"{bad} must raise ValueError")


def test_verify_on_the_rtl():
    # `maeri verify --chain` in a child process: tiny's graph through the Verilated fabric and the unit, the report the
    # CLI's --json writes (15 runs: 4 fabric layers, their 4 epilogues and 7 operators, as cli_chain_* count them).
    run = maeri.verify(HW64, TINY, memory="ideal")
    assert run["passed"] and run["exit_code"] == 0, run
    report = run["report"]
    assert (report["network"], report["result"], report["runs"]) == ("tiny", "PASS", 15), report
    layer = maeri.verify(HW64, TINY, chain=False, layer="conv1", memory="ideal")
    assert layer["passed"], layer
    # Bad input is ValueError with maeri's message; an option the chained run refuses, too.
    for bad, words in ((dict(hardware=os.path.join(CONFIGS, "nope.yaml")), ["nope.yaml"]),
                       (dict(memory="fast"), ["--memory"])):
        arguments = dict(hardware=HW64, workload=TINY)
        arguments.update(bad)
        try:
            maeri.verify(**arguments)
        except ValueError as error:
            assert all(word in str(error) for word in words), (bad, str(error))
        else:
            raise AssertionError(f"{bad} must raise ValueError")


def test_bad_input():
    try:
        maeri.load(os.path.join(CONFIGS, "nope.yaml"))
    except ValueError as error:
        assert "nope.yaml" in str(error)
    else:
        raise AssertionError("a missing workload must raise ValueError")


if __name__ == "__main__":
    tests = [value for name, value in sorted(globals().items()) if name.startswith("test_")]
    failed = 0
    for test in tests:
        try:
            test()
        except Exception as error:  # report every failing test, then fail
            failed += 1
            print(f"FAIL {test.__name__}: {error!r}")
    print(f"{len(tests) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)
