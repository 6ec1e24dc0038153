"""Which file an import names, and how much of it is parsed for the importer."""

from __future__ import annotations

import textwrap

from shapecheck.analysis.project import ImportResolver, read_project_file


def write(root, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))


def test_relative_imports_resolve_in_the_package_and_not_beyond_its_top(tmp_path):
    write(tmp_path, {"pkg/__init__.py": "", "pkg/sub/__init__.py": "", "pkg/sub/mod.py": "",
                     "pkg/layers.py": "", "pkg/sub/deep.py": ""})
    resolver = ImportResolver(str(tmp_path / "pkg" / "sub" / "mod.py"))
    assert resolver.resolve("deep", 1).path == str(tmp_path / "pkg" / "sub" / "deep.py")
    assert resolver.resolve("layers", 2).path == str(tmp_path / "pkg" / "layers.py")
    assert resolver.resolve(None, 2).directory == str(tmp_path / "pkg")
    assert resolver.resolve("layers", 3) is None  # above the top package


def test_absolute_imports_search_the_directory_the_package_top_and_the_lint_root(tmp_path):
    write(tmp_path, {"proj/pkg/__init__.py": "", "proj/pkg/model.py": "", "proj/pkg/near.py": "",
                     "proj/common/util.py": "", "proj/top.py": "", "json.py": ""})
    resolver = ImportResolver(str(tmp_path / "proj" / "pkg" / "model.py"), str(tmp_path / "proj"))
    assert resolver.resolve("near", 0).path == str(tmp_path / "proj" / "pkg" / "near.py")
    assert resolver.resolve("pkg.near", 0).path == str(tmp_path / "proj" / "pkg" / "near.py")
    assert resolver.resolve("common.util", 0).path == str(tmp_path / "proj" / "common" / "util.py")
    assert resolver.resolve("top", 0).path == str(tmp_path / "proj" / "top.py")
    assert resolver.resolve("json", 0) is None  # the standard library, whatever the disk holds
    assert resolver.resolve("absent.module", 0) is None


def test_files_under_site_packages_are_libraries(tmp_path):
    write(tmp_path, {"site-packages/app/main.py": "", "site-packages/app/helper.py": ""})
    resolver = ImportResolver(str(tmp_path / "site-packages" / "app" / "main.py"))
    assert resolver.resolve("helper", 0) is None


def test_only_the_named_definitions_and_what_they_read_are_parsed_at_their_own_lines(tmp_path):
    write(tmp_path, {"lib.py": """
        import numpy as np

        SCALE = 2


        def used(x):
            return helper(x) * SCALE


        def helper(x):
            return x


        class Unrelated:
            pass
        """})
    parsed = read_project_file(str(tmp_path / "lib.py"), frozenset({"used"}))
    kept = [type(stmt).__name__ for stmt in parsed.module.body]
    assert kept == ["SimpleStatementLine", "FunctionDef", "FunctionDef"]  # SCALE, used, helper
    used = parsed.module.body[1]
    assert parsed.positions[used].start.line == 6
    assert parsed.positions[used.body.body[0]].start.line == 7
    everything = read_project_file(str(tmp_path / "lib.py"))
    assert len(everything.module.body) == 5


def test_the_import_budget_counts_files_not_the_name_sets_imported_from_them(tmp_path):
    # A package's __init__ re-exports from a few files; each import of other names from one of
    # them is that same file again, not a file more (MAX_IMPORTED_MODULES of them were cut off).
    from shapecheck.analysis.api import AnalysisSettings, analyze_source
    from shapecheck.analysis.project import MAX_IMPORTED_MODULES

    count = MAX_IMPORTED_MODULES + 2
    helpers = "import numpy as np\n" + "".join(
        f"\ndef make{i}():\n    return np.zeros(({i + 2}, 4))\n" for i in range(count))
    imports = "".join(f"from lib.helpers import make{i}\n" for i in range(count))
    main = f"import numpy as np\n{imports}\nx = make{count - 1}() + np.zeros((5,))\n"
    write(tmp_path, {"lib/__init__.py": "", "lib/helpers.py": helpers, "app.py": main})
    findings = analyze_source(main, str(tmp_path / "app.py"), AnalysisSettings(project_root=str(tmp_path)))
    assert [(f.line, f.code) for f in findings] == [(count + 3, "SC101")]


def test_imports_are_followed_four_files_deep_and_no_further(tmp_path):
    # app -> a -> b -> c -> d: d's definition is known to app; one more file, and it is not.
    from shapecheck.analysis.api import AnalysisSettings, analyze_source

    definition = "import numpy as np\n\ndef make():\n    return np.zeros((3, 4))\n"
    write(tmp_path, {
        "a.py": "from b import make\n", "b.py": "from c import make\n",
        "c.py": "from d import make\n", "d.py": definition,
        "a2.py": "from b2 import make\n", "b2.py": "from c2 import make\n",
        "c2.py": "from d2 import make\n", "d2.py": "from e2 import make\n", "e2.py": definition,
    })
    for module, expected in (("a", [(3, "SC101")]), ("a2", [])):
        main = f"import numpy as np\nfrom {module} import make\nx = make() + np.zeros((5,))\n"
        write(tmp_path, {f"app_{module}.py": main})
        findings = analyze_source(main, str(tmp_path / f"app_{module}.py"),
                                  AnalysisSettings(project_root=str(tmp_path)))
        assert [(f.line, f.code) for f in findings] == expected, module


def test_a_package_init_asks_its_module_only_for_the_names_its_importer_reads(tmp_path):
    # timm.layers' __init__ re-exports thirteen classes of norm_act.py in one statement: asked
    # for all of them, the module's line budget went to the others, and the helper the one
    # class read (_create_act) was left out, so its every instance was unknown.
    from shapecheck.analysis.api import AnalysisSettings, analyze_source
    from shapecheck.analysis.project import MAX_IMPORTED_LINES

    filler = "".join(f"\n\nclass Other{i}:\n" + "    x = 1\n" * 40 for i in range(MAX_IMPORTED_LINES // 40))
    module = "import numpy as np" + filler + """


def _width():
    n = 1
    n += 1
    n += 1
    n += 1
    n += 1
    n += 1
    n -= 1
    n -= 1
    n -= 1
    n -= 1
    n += 4
    return n


class Used:
    def __init__(self):
        self.value = np.zeros((3, _width()))
"""
    others = "".join(f"    Other{i},\n" for i in range(MAX_IMPORTED_LINES // 40))
    write(tmp_path, {"lib/__init__.py": f"from .mods import (\n    Used,\n{others})\n",
                     "lib/mods.py": module})
    assert read_project_file(str(tmp_path / "lib" / "__init__.py"), frozenset({"Used"})).needed == {"Used"}
    main = "import numpy as np\nfrom lib import Used\nx = Used().value + np.zeros((4,))\n"
    write(tmp_path, {"app.py": main})
    findings = analyze_source(main, str(tmp_path / "app.py"), AnalysisSettings(project_root=str(tmp_path)))
    assert [(f.line, f.code) for f in findings] == [(3, "SC101")]


def test_names_an_imported_file_has_from_its_star_import_are_followed(tmp_path):
    # timm's create_act.py reads nn and its activation classes from ``from .activations import *``.
    from shapecheck.analysis.api import AnalysisSettings, analyze_source

    write(tmp_path, {"lib/__init__.py": "",
                     "lib/base.py": "import numpy as np\n\nWIDTH = 5\n_HIDDEN = 7\n",
                     "lib/make.py": "from .base import *\n\n\ndef make():\n    return np.zeros((3, WIDTH))\n",
                     "lib/hidden.py": "from .base import *\n\n\ndef make():\n    return np.zeros((3, _HIDDEN))\n"})
    for module, expected in (("make", [(3, "SC101")]), ("hidden", [])):
        main = f"import numpy as np\nfrom lib.{module} import make\nx = make() + np.zeros((4,))\n"
        write(tmp_path, {"app.py": main})
        findings = analyze_source(main, str(tmp_path / "app.py"), AnalysisSettings(project_root=str(tmp_path)))
        assert [(f.line, f.code) for f in findings] == expected, module


def test_the_files_the_analyzed_file_imports_are_read_whatever_the_others_spent(tmp_path):
    # timm's resnet.py imports 34 names of timm.layers, whose own imports spent the budget of
    # files before resnet.py's next import, its _builder, was read.
    from shapecheck.analysis.api import AnalysisSettings, analyze_source
    from shapecheck.analysis.project import MAX_IMPORTED_MODULES

    count = MAX_IMPORTED_MODULES + 5
    files = {f"lib/part{i}.py": f"def piece{i}():\n    return {i}\n" for i in range(count)}
    files["lib/__init__.py"] = ""
    files["lib/many.py"] = "".join(f"from .part{i} import piece{i}\n" for i in range(count)) + \
        "\n\ndef use():\n    return " + " + ".join(f"piece{i}()" for i in range(count)) + "\n"
    files["lib/helper.py"] = "import numpy as np\n\n\ndef make():\n    return np.zeros((3, 4))\n"
    main = "import numpy as np\nfrom lib.many import use\nfrom lib.helper import make\n" \
           "x = make() + np.zeros((5,))\n"
    files["app.py"] = main
    write(tmp_path, files)
    findings = analyze_source(main, str(tmp_path / "app.py"), AnalysisSettings(project_root=str(tmp_path)))
    assert [(f.line, f.code) for f in findings] == [(4, "SC101")]


def test_a_module_first_reached_past_the_depth_limit_runs_again_for_a_nearer_import(tmp_path):
    # timm.layers' __init__ re-exports ConvNormAct before create_conv2d: conv_bn_act.py
    # reaches create_conv2d.py one file deeper than the analyzed file's own import of it, so
    # its chain down to the padding helper was past the depth limit, and the analyzed file's
    # create_conv2d built nothing. Nearer, the same module is run again, complete.
    from shapecheck.analysis.api import AnalysisSettings, analyze_source
    from shapecheck.analysis.project import MAX_IMPORT_DEPTH

    chain = [f"lib/step{i}.py" for i in range(MAX_IMPORT_DEPTH)]
    files = {"lib/__init__.py": "from .user import use\nfrom .step0 import make\n",
             "lib/user.py": "from .step0 import make\n\n\ndef use():\n    return make()\n"}
    for i, path in enumerate(chain[:-1]):
        files[path] = f"from .step{i + 1} import make\n"
    files[chain[-1]] = "from .width import WIDTH\nimport numpy as np\n\n\n" \
                       "def make():\n    return np.zeros((3, WIDTH))\n"
    files["lib/width.py"] = "WIDTH = 4\n"
    main = "import numpy as np\nfrom lib import use, make\nx = make() + np.zeros((5,))\n"
    files["app.py"] = main
    write(tmp_path, files)
    findings = analyze_source(main, str(tmp_path / "app.py"), AnalysisSettings(project_root=str(tmp_path)))
    assert [(f.line, f.code) for f in findings] == [(3, "SC101")]
