"""The interface's own words, in every language of the reference (issue 16): one table for the
CLI, the entry pages and the paste page (:func:`ui` gives one of them).

Each key maps a language to its text; ``{name}`` marks a value filled in (``str.format`` in
Python; the paste page's script replaces ``{name}`` the same way). Each site's
``_static/autograd-strings.js`` carries the ``paste.*`` strings (:func:`export_strings`). Terms
follow ``locales/zh_CN/glossary.toml``.

Also here: which language a command speaks (``--lang``, else the locale variables).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

ENGLISH, CHINESE = "en", "zh_CN"

STRINGS: dict[str, dict[str, str]] = {
    # The answer, on every surface: the command line, the hooks, IPython, pytest and the paste
    # page (rendering/text.py, notebook.py; static/autograd-ui.js reads them as "answer.*").
    "answer.your_line": {"en": "Your line:", "zh_CN": "你的代码行："},
    # A notebook's cell, as IPython names it (IPython's words, in every language).
    "answer.cell": {
        "en": "Cell In[{number}], line {line}",
        "zh_CN": "Cell In[{number}], line {line}",
    },
    "answer.cell_unnumbered": {"en": "a cell, line {line}", "zh_CN": "单元格第 {line} 行"},
    "answer.most_likely": {"en": "Most likely:", "zh_CN": "最可能的原因："},
    "answer.most_common": {"en": "Most common:", "zh_CN": "最常见的原因："},
    "answer.seen": {"en": "Seen in this paste:", "zh_CN": "粘贴内容中的依据："},
    "answer.seen_diagnosis": {"en": "Evidence:", "zh_CN": "依据："},
    "answer.signs": {"en": "{signs}.", "zh_CN": "{signs}。"},
    "answer.sign_separator": {"en": "; ", "zh_CN": "；"},
    "answer.sign.code_here": {"en": "`{sign}` in your line", "zh_CN": "你的代码行中有 `{sign}`"},
    "answer.sign.code": {"en": "`{sign}` in {location}", "zh_CN": "{location} 中有 `{sign}`"},
    "answer.sign.code_near_here": {
        "en": "`{sign}` near your line",
        "zh_CN": "你的代码行附近有 `{sign}`",
    },
    "answer.sign.code_near": {
        "en": "`{sign}` near {location}",
        "zh_CN": "{location} 附近有 `{sign}`",
    },
    "answer.sign.file": {
        "en": "the traceback goes through `{file}`",
        "zh_CN": "回溯经过 `{file}`",
    },
    "answer.sign.field": {"en": "the message names `{value}`", "zh_CN": "报错信息中提到 `{value}`"},
    "answer.sign.form": {
        "en": 'the message reads "{wording}"',
        "zh_CN": "报错信息的措辞是“{wording}”",
    },
    "answer.sign.diagnosis": {
        "en": "the diagnosis found it at {location}",
        "zh_CN": "诊断在 {location} 找到了它",
    },
    "answer.fix": {"en": "Fix:", "zh_CN": "修复："},
    "answer.more": {"en": "More:", "zh_CN": "详见："},
    "answer.partial": {
        "en": "Matched part of the wording ({percent}% of it).",
        "zh_CN": "匹配了措辞的一部分（{percent}%）。",
    },
    "answer.symptom": {
        "en": "Found by its symptom ({symptom}): this pitfall raises no message of its own.",
        "zh_CN": "根据症状“{symptom}”找到：这个陷阱本身不会报出任何信息。",
    },
    "answer.wording": {
        "en": "Wording '{variant}', printed by {releases}.",
        "zh_CN": "措辞“{variant}”，打印它的版本：{releases}。",
    },
    # The command line (rendering/, cli/).
    "cli.more_options": {
        "en": "--verbose gives every common cause, why torch raises it, and the wording matched.",
        "zh_CN": "加上 --verbose 可查看所有常见原因、torch 报错的原因以及匹配到的措辞。",
    },
    "cli.also_in_paste": {"en": "Also in this paste:", "zh_CN": "粘贴内容中还有："},
    "cli.shared": {
        "en": "{count} entries share this part of a message; none stands out.",
        "zh_CN": "{count} 个条目都含有这段报错信息，无法确定是哪一个。",
    },
    "cli.several": {
        "en": "{count} entries in this paste, the final exception first.",
        "zh_CN": "这段粘贴内容涉及 {count} 个条目，最后抛出的异常排在最前。",
    },
    "cli.no_match": {"en": "No entry matches this text.", "zh_CN": "没有条目与这段文本匹配。"},
    "answer.raised_elsewhere": {
        "en": "Raised at {where} by a `raise` outside PyTorch: another library's error in "
        "PyTorch's words, which PyTorch's explanation may not fit.",
        "zh_CN": "由 {where} 处的 `raise` 抛出，不在 PyTorch 之内：这是另一个库沿用 PyTorch "
        "措辞的报错，PyTorch 的解释未必适用。",
    },
    "answer.raised_near": {
        "en": "PyTorch's own error in these words:",
        "zh_CN": "PyTorch 自己的、措辞相同的报错：",
    },
    "answer.context_only": {
        "en": "Only anomaly mode's own lines here: its notice that it is on, or its report of "
        "the backward function that failed, not the error itself. If an error followed, its "
        "message (after the forward traceback) says which entry explains it: paste it too.",
        "zh_CN": "这里只有异常检测模式自己打印的行：它已开启的提示，或是哪个反向函数出错的报告，"
        "而不是报错本身。如果后面还有报错，是那条报错信息（在前向传播的回溯信息之后）说明了"
        "该看哪个条目：请把它也粘贴进来。",
    },
    "answer.context_frame": {
        "en": "The forward call of the backward function that failed, in your code:",
        "zh_CN": "出错的反向函数对应的前向调用，在你的代码中：",
    },
    "answer.context_near": {
        "en": "The entry that explains these lines (not the error beside them):",
        "zh_CN": "解释这些行的条目（不是它们旁边那个报错的条目）：",
    },
    "answer.described": {
        "en": "This text quotes no error message, so no entry is matched to it: it describes "
        "a problem. If there was an error, paste its message or traceback.",
        "zh_CN": "这段文本没有引用任何报错信息，所以没有条目与之匹配：它描述的是一个问题。"
        "如果出现过报错，请粘贴报错信息或回溯信息。",
    },
    "answer.described_near": {
        "en": "Pages about what it describes (not a match):",
        "zh_CN": "关于它所描述情况的页面（不是匹配）：",
    },
    "cli.near_intro": {
        "en": "Not matches, but the closest entries (their wording differs):",
        "zh_CN": "没有匹配，以下是最接近的条目（措辞不同）：",
    },
    "cli.list_hint": {
        "en": "`autograd-errors list` shows every entry.",
        "zh_CN": "`autograd-errors list` 列出所有条目。",
    },
    "cli.not_autograd": {"en": "Not an autograd error", "zh_CN": "不是自动求导（autograd）的报错"},
    "cli.see": {"en": "See", "zh_CN": "参见"},
    "cli.retired": {
        "en": "Retired: last raised by torch {release}; now {replaced_by}",
        "zh_CN": "已退役：最后由 torch {release} 抛出；现在：{replaced_by}",
    },
    "cli.fields": {"en": "Fields:", "zh_CN": "字段："},
    "cli.in_your_paste": {"en": "In your paste", "zh_CN": "你粘贴的内容中"},
    "cli.why": {"en": "Why", "zh_CN": "原因"},
    "cli.fix_heading": {"en": "Fix", "zh_CN": "修复"},
    "cli.docs": {"en": "PyTorch documentation", "zh_CN": "PyTorch 文档"},
    "cli.causes": {
        "en": "Common causes, most common first",
        "zh_CN": "常见原因（最常见的在前）",
    },
    "cli.pitfall": {
        "en": "A silent pitfall: nothing is raised.",
        "zh_CN": "静默陷阱：不会抛出任何报错。",
    },
    "cli.wordings": {"en": "Wordings", "zh_CN": "措辞"},
    "cli.related": {"en": "Related", "zh_CN": "相关条目"},
    "cli.retired_tag": {"en": "[retired]", "zh_CN": "[已退役]"},
    "cli.pitfall_kind": {"en": "(pitfall)", "zh_CN": "（陷阱）"},
    "cli.paste_prompt": {
        "en": "Paste the error or the whole traceback, then press Ctrl-D on a line of its own:",
        "zh_CN": "粘贴报错信息或完整的回溯信息（traceback），然后另起一行按 Ctrl-D：",
    },
    # A notebook's answer (rendering/notebook.py): the summary that opens everything.
    "notebook.everything": {
        "en": "Every common cause, why torch raises it, and the wording matched",
        "zh_CN": "所有常见原因、torch 报错的原因以及匹配到的措辞",
    },
    # A diagnosis on every surface (rendering/diagnosis.py): headings and labels.
    "diagnose.heading": {"en": "Diagnosis:", "zh_CN": "诊断："},
    "diagnose.heading_rerun": {
        "en": "Diagnosis (the program was run again, instrumented, in {seconds} s):",
        "zh_CN": "诊断（插桩后重新运行了程序，用时 {seconds} 秒）：",
    },
    "diagnose.progress": {
        "en": "Diagnosing: running the program again, instrumented...",
        "zh_CN": "正在诊断：插桩后重新运行程序……",
    },
    "diagnose.culprit": {"en": "Culprit:", "zh_CN": "问题代码："},
    # %autograd_diagnose in IPython (ipython.py).
    "diagnose.ipython_nothing_failed": {
        "en": "%autograd_diagnose: no cell has failed since the extension was loaded.",
        "zh_CN": "%autograd_diagnose：加载扩展以来还没有单元格出错。",
    },
    "diagnose.ipython_unknown": {
        "en": "%autograd_diagnose: the last failed cell's error is not one the catalog knows.",
        "zh_CN": "%autograd_diagnose：最后一个出错单元格的报错不在目录中。",
    },
    "diagnose.cause": {"en": "Cause:", "zh_CN": "原因："},
    "diagnose.nothing": {"en": "No culprit found.", "zh_CN": "没有找到问题代码。"},
    # The part each culprit line played (findings.ROLES).
    "diagnose.role.changed-in-place": {"en": "changed in place", "zh_CN": "原地修改"},
    "diagnose.role.saved": {"en": "saved for backward", "zh_CN": "为反向传播保存"},
    "diagnose.role.carried-over": {"en": "carried over", "zh_CN": "带入下一步"},
    "diagnose.role.not-detached": {"en": "not detached", "zh_CN": "没有分离（detach）"},
    "diagnose.role.reused": {"en": "used again", "zh_CN": "再次使用"},
    "diagnose.role.built": {"en": "graph built", "zh_CN": "构建计算图"},
    "diagnose.role.freed-by": {"en": "graph freed", "zh_CN": "释放计算图"},
    "diagnose.role.no-grad": {"en": "no grad", "zh_CN": "关闭梯度"},
    "diagnose.role.graph-cut": {"en": "graph cut", "zh_CN": "切断计算图"},
    "diagnose.role.frozen": {"en": "frozen", "zh_CN": "冻结"},
    "diagnose.role.became-non-leaf": {"en": "became a non-leaf", "zh_CN": "变成非叶子张量"},
    "diagnose.role.non-finite": {"en": "first non-finite", "zh_CN": "最早出现非有限值"},
    "diagnose.role.reported": {"en": "named by anomaly mode", "zh_CN": "异常检测报告的节点"},
    "diagnose.role.raised": {"en": "raised", "zh_CN": "抛出报错"},
    # What happened at a culprit line.
    "diagnose.what.changed": {
        "en": "`{op}` changed the saved tensor ({tensor}) in place, from version {before} to "
        "{after}.",
        "zh_CN": "`{op}` 原地修改了为反向传播保存的张量（{tensor}），"
        "版本从 {before} 变为 {after}。",
    },
    "diagnose.what.saved": {
        "en": "Here {node} saved it for backward, at version {version}.",
        "zh_CN": "{node} 在这里把它保存下来供反向传播使用，当时的版本是 {version}。",
    },
    "diagnose.what.assigned_attribute": {
        "en": "The result, with its graph, is kept as the attribute `{name}` of {owner} for "
        "the next step.",
        "zh_CN": "结果连同它的计算图被保存为 {owner} 的属性 `{name}`，带入下一步。",
    },
    "diagnose.what.assigned_buffer": {
        "en": "The result, with its graph, is kept in the buffer `{name}` of {owner} for the "
        "next step.",
        "zh_CN": "结果连同它的计算图被保存在 {owner} 的缓冲区（buffer）`{name}` 中，带入下一步。",
    },
    "diagnose.what.total": {
        "en": "The running total keeps the graph of every earlier step ({node}), which their "
        "backward freed.",
        "zh_CN": "累计的总和保留着之前每一步的计算图（{node}），"
        "而那些计算图已被它们的反向传播释放。",
    },
    "diagnose.what.not_detached": {
        "en": "This loss went through the graph ({node}) without `.detach()`: its backward "
        "freed that graph.",
        "zh_CN": "这个 loss 没有经过 `.detach()` 就用到了这部分计算图（{node}）："
        "它的反向传播释放了这部分计算图。",
    },
    "diagnose.what.built_once": {
        "en": "Built once ({node}), before the first backward, and used by every step.",
        "zh_CN": "在第一次反向传播之前只构建了一次（{node}），却被每一步使用。",
    },
    "diagnose.what.reused": {
        "en": "This step uses a tensor whose graph ({node}) an earlier backward freed.",
        "zh_CN": "这一步用到的张量，其计算图（{node}）已被之前的反向传播释放。",
    },
    "diagnose.what.built": {
        "en": "Its graph ({node}) was built here.",
        "zh_CN": "它的计算图（{node}）是在这里构建的。",
    },
    "diagnose.what.freed_by": {
        "en": "This backward freed that graph.",
        "zh_CN": "这次反向传播释放了那部分计算图。",
    },
    "diagnose.what.shared": {
        "en": "Both losses share the graph built here ({node}).",
        "zh_CN": "两个 loss 共享在这里构建的计算图（{node}）。",
    },
    "diagnose.what.no_grad": {
        "en": "Inside this block, torch records no graph.",
        "zh_CN": "在这个代码块里，torch 不记录计算图。",
    },
    "diagnose.what.frozen": {
        "en": "`requires_grad` was turned off here.",
        "zh_CN": "这里关闭了 `requires_grad`。",
    },
    "diagnose.what.item": {
        "en": "`.item()` turned a tensor of the graph into a Python number.",
        "zh_CN": "`.item()` 把计算图中的张量变成了 Python 数字。",
    },
    "diagnose.what.cut_detach": {
        "en": "`{op}` returned a tensor outside the graph.",
        "zh_CN": "`{op}` 返回了一个不在计算图中的张量。",
    },
    "diagnose.what.cut_no_grad": {
        "en": "`{op}` ran with grad mode off: its result has no graph.",
        "zh_CN": "`{op}` 在梯度模式关闭时运行：它的结果没有计算图。",
    },
    "diagnose.what.cut_inference_mode": {
        "en": "`{op}` ran in inference mode: its result has no graph.",
        "zh_CN": "`{op}` 在推理模式下运行：它的结果没有计算图。",
    },
    "diagnose.what.cut_non_differentiable": {
        "en": "`{op}` has no gradient: its result has no graph.",
        "zh_CN": "`{op}` 没有梯度：它的结果没有计算图。",
    },
    "diagnose.what.cut_item": {
        "en": "`{op}` made a new tensor from that Python number, outside the graph.",
        "zh_CN": "`{op}` 用那个 Python 数字创建了新的张量，它不在计算图中。",
    },
    "diagnose.what.cut_frozen": {
        "en": "`{op}` used only tensors that do not require grad.",
        "zh_CN": "`{op}` 用到的张量都不需要梯度。",
    },
    "diagnose.what.non_leaf": {
        "en": "`{tensor}` is the result of this operation ({node}), a non-leaf: the gradient "
        "goes to the tensor created with `requires_grad=True`.",
        "zh_CN": "`{tensor}` 是这个操作的结果（{node}），一个非叶子张量："
        "梯度进入的是用 `requires_grad=True` 创建的那个张量。",
    },
    "diagnose.what.forward_nan": {
        "en": "`{op}` returned NaN in the forward pass already.",
        "zh_CN": "`{op}` 在前向传播中就已经返回了 NaN。",
    },
    "diagnose.what.backward_nonfinite": {
        "en": "The first backward node whose output was not finite: {node} returned {kind} "
        "in its output {index}.",
        "zh_CN": "第一个输出不是有限值的反向节点：{node} 的第 {index} 个输出是 {kind}。",
    },
    "diagnose.what.reported": {
        "en": "Anomaly mode names {node}, built here.",
        "zh_CN": "异常检测报告的是在这里构建的 {node}。",
    },
    "diagnose.what.raised": {
        "en": "Torch raised the error here.",
        "zh_CN": "torch 在这里抛出报错。",
    },
    "diagnose.what.raised_tensor": {
        "en": "Torch raised the error here, about `{tensor}` ({shape}).",
        "zh_CN": "torch 在这里抛出报错，涉及 `{tensor}`（{shape}）。",
    },
    # What a diagnosis saw, and what it could not see.
    "diagnose.note.no_versions": {
        "en": "The message gives no version numbers to match against the changes recorded.",
        "zh_CN": "报错信息中没有可与记录到的修改相对照的版本号。",
    },
    "diagnose.note.no_inplace": {
        "en": "No recorded in-place change moved a {shape} tensor from version {before} to "
        "{after}.",
        "zh_CN": "记录到的原地操作中，没有把 {shape} 张量从版本 {before} 改到 {after} 的。",
    },
    "diagnose.note.no_backward": {
        "en": "The error was not raised inside a recorded `backward()` call.",
        "zh_CN": "这个报错不是在记录到的 `backward()` 调用中抛出的。",
    },
    "diagnose.note.no_carried": {
        "en": "No tensor of an earlier step, with a freed graph, was found in this backward's "
        "graph.",
        "zh_CN": "在这次反向传播的计算图中，没有找到来自之前步骤、计算图已被释放的张量。",
    },
    "diagnose.note.no_cut": {
        "en": "No recorded operation cut the graph of the tensor passed to `backward()`: nothing "
        "on its way required grad.",
        "zh_CN": "没有记录到切断传给 `backward()` 的张量的计算图的操作："
        "它的来路上没有需要梯度的张量。",
    },
    "diagnose.note.no_tensor": {
        "en": "The tensor the error is about could not be found in the frame that raised it.",
        "zh_CN": "在抛出报错的帧中找不到报错涉及的张量。",
    },
    "diagnose.note.no_line": {
        "en": "Where `{tensor}` got its graph was not recorded.",
        "zh_CN": "没有记录到 `{tensor}` 在哪里得到了它的计算图。",
    },
    "diagnose.note.no_gradient": {
        "en": "{count} parameters got no gradient: {names}.",
        "zh_CN": "{count} 个参数没有得到梯度：{names}。",
    },
    "diagnose.note.no_nonfinite": {
        "en": "No forward result and no backward node output that was not finite was recorded.",
        "zh_CN": "没有记录到非有限值的前向结果或反向节点输出。",
    },
    "diagnose.note.no_user_frame": {
        "en": "The traceback holds no frame of your own code.",
        "zh_CN": "回溯信息（traceback）中没有你自己代码的帧。",
    },
    "diagnose.note.worker": {
        "en": "Raised in DataLoader worker process {worker}: diagnosis records only the main "
        "process, so what happened there was not seen.",
        "zh_CN": "报错发生在 DataLoader 的 worker 进程 {worker} 中：诊断只记录主进程，"
        "看不到那里发生了什么。",
    },
    "diagnose.note.worker_line": {
        "en": "Raised in DataLoader worker process {worker}: the line is read from the worker's "
        "traceback; diagnosis records only the main process.",
        "zh_CN": "报错发生在 DataLoader 的 worker 进程 {worker} 中："
        "这一行取自 worker 的回溯信息（traceback）；诊断只记录主进程。",
    },
    "diagnose.note.thread": {
        "en": "Raised in {thread}: diagnosis records the main thread only, so the operations "
        "that led there were not seen.",
        "zh_CN": "报错发生在 {thread} 中：诊断只记录主线程，看不到导致报错的那些操作。",
    },
    "diagnose.note.not_recorded": {
        "en": "Finding the culprit of this error needs an instrumented run, and none was made.",
        "zh_CN": "要找到这个报错的问题代码，需要插桩运行，而这次没有插桩运行。",
    },
    "diagnose.note.rerun_passed": {
        "en": "Run again, the program did not fail: the error depends on something that changed "
        "(random numbers, data, time).",
        "zh_CN": "重新运行时程序没有出错：这个报错取决于某些会变化的东西（随机数、数据、时间）。",
    },
    "diagnose.note.rerun_differed": {
        "en": "Run again, the program failed otherwise ({error}), so the culprit of this "
        "error was not found.",
        "zh_CN": "重新运行时程序以另一种方式出错（{error}），因此没有找到这个报错的问题代码。",
    },
    "diagnose.note.rerun_crashed": {
        "en": "The instrumented run ended without a result (exit code {code}).",
        "zh_CN": "插桩运行结束了，但没有得到结果（退出码 {code}）。",
    },
    "diagnose.note.interrupted": {
        "en": "The instrumented run was interrupted.",
        "zh_CN": "插桩运行被中断了。",
    },
    "diagnose.note.symptom": {
        "en": "This error is a symptom of {entry}: `autograd-errors show {entry}` explains it.",
        "zh_CN": "这个报错是 {entry} 的症状：`autograd-errors show {entry}` 会解释它。",
    },
    "diagnose.note.no_probe": {
        "en": "Diagnosis does not trace this error yet: the answer above is all there is.",
        "zh_CN": "诊断目前还不能追踪这个报错：上面的回答就是全部内容。",
    },
    "diagnose.note.nested": {
        "en": "Not diagnosed: this program is itself the instrumented run of a diagnosis.",
        "zh_CN": "没有诊断：这个程序本身就是一次诊断的插桩运行。",
    },
    # Release ranges (catalog/releases.py describes them in English).
    "releases.one": {"en": "torch {since}", "zh_CN": "torch {since}"},
    "releases.span": {"en": "torch {since} to {until}", "zh_CN": "torch {since} 至 {until}"},
    "releases.since": {"en": "torch {since} and later", "zh_CN": "torch {since} 及以后的版本"},
    "releases.until": {
        "en": "torch releases up to {until}",
        "zh_CN": "torch {until} 及以前的版本",
    },
    "releases.all": {"en": "every torch release", "zh_CN": "所有 torch 版本"},
    # A common cause that leads to the message on some releases only.
    "cause.releases": {"en": "(On {releases}.)", "zh_CN": "（适用于 {releases}。）"},
    # The entry pages (sphinxext/directives.py).
    "page.pitfall_title": {"en": "A silent pitfall", "zh_CN": "静默陷阱"},
    "page.pitfall_body": {
        "en": "Torch raises nothing here: the code runs, and the result is not what it seems. "
        "The demonstration below asserts the behaviour on the installed torch.",
        "zh_CN": "这里 torch 不会报错：代码照常运行，但结果并非看上去那样。"
        "下面的演示在已安装的 torch 上用断言验证了这一行为。",
    },
    "page.retired_caption": {
        "en": "What torch {release} printed (recorded; current torch no longer raises it)",
        "zh_CN": "torch {release} 打印的内容（记录所得；当前的 torch 已不再抛出它）",
    },
    "page.retired": {
        "en": "**Retired.** Last raised by torch {release}. Now:",
        "zh_CN": "**已退役。** 最后由 torch {release} 抛出。现在：",
    },
    "page.cuda_title": {
        "en": "Not run in this build: the repro needs CUDA",
        "zh_CN": "本次构建未运行：最小复现需要 CUDA",
    },
    "page.cuda_body": {
        "en": "The machine that built this page has no CUDA, so the repro below did not run and "
        "the message was not checked against its torch. The message is pinned from "
        "`PyTorch's source <{source}>`__; the repro runs where CUDA exists.",
        "zh_CN": "构建本页的机器没有 CUDA，因此下面的最小复现没有运行，"
        "报错信息也没有用这台机器的 torch 核对。"
        "报错信息取自 `PyTorch 源码 <{source}>`__；在有 CUDA 的机器上，最小复现可以运行。",
    },
    "page.cuda_caption": {
        "en": "What torch prints (pinned from its source, not run here)",
        "zh_CN": "torch 打印的内容（取自源码，未在此运行）",
    },
    "page.built_caption": {
        "en": "What torch {version} printed when this page was built",
        "zh_CN": "构建本页时 torch {version} 打印的内容",
    },
    "page.broken": {"en": "Broken", "zh_CN": "出错的代码"},
    "page.fixed": {"en": "Fixed", "zh_CN": "修复后的代码"},
    "page.why": {"en": "Why", "zh_CN": "原因"},
    "page.fix": {"en": "Fix", "zh_CN": "修复方法"},
    "page.what_happens": {"en": "What happens", "zh_CN": "发生了什么"},
    "page.what_to_do": {"en": "What to do", "zh_CN": "怎么做"},
    "page.terminal": {
        "en": "From a terminal, with any wording of the message:",
        "zh_CN": "在终端中（报错信息的任一措辞均可）：",
    },
    "page.causes": {"en": "Common causes", "zh_CN": "常见原因"},
    "page.causes_order": {"en": "The most common first.", "zh_CN": "最常见的在前。"},
    "page.raises_it": {"en": "Raises it", "zh_CN": "触发报错的代码"},
    "page.shows_it": {"en": "Shows it", "zh_CN": "演示问题的代码"},
    "page.sources": {"en": "Sources:", "zh_CN": "来源："},
    "page.wordings_intro": {
        "en": "Every wording of this message the reference recognises, and the torch releases "
        "that print it. ``{name}`` marks a value torch fills in.",
        "zh_CN": "本参考能识别的这条报错信息的所有措辞，以及打印各措辞的 torch 版本。"
        "``{name}`` 表示由 torch 填入的值。",
    },
    "page.variant": {"en": "Variant", "zh_CN": "变体"},
    "page.releases": {"en": "Releases", "zh_CN": "版本"},
    "page.message": {"en": "Message", "zh_CN": "报错信息"},
    "page.source": {"en": "Source", "zh_CN": "来源"},
    "page.changed": {"en": "Changed", "zh_CN": "变化"},
    "page.observed_intro": {
        "en": "What each recorded torch release printed for the repro above, found by running "
        "it on that release; the words that changed from the row before are highlighted.",
        "zh_CN": "上面的最小复现在每个有记录的 torch 版本上实际运行时打印的内容；"
        "与上一行相比有变化的词会高亮显示。",
    },
    "page.not_recorded": {"en": "not recorded", "zh_CN": "未记录"},
    "page.not_applicable": {
        "en": "not applicable: the repro needs a newer torch",
        "zh_CN": "不适用：最小复现需要更新的 torch",
    },
    "page.not_run_cuda": {
        "en": "not run: the repro needs CUDA",
        "zh_CN": "未运行：最小复现需要 CUDA",
    },
    "page.raises_nothing": {"en": "raises nothing", "zh_CN": "不报错"},
    "page.first_recording": {"en": "first recording", "zh_CN": "首次记录"},
    "page.unchanged": {"en": "unchanged", "zh_CN": "未变"},
    "page.was": {"en": "was:", "zh_CN": "原为："},
    "page.now": {"en": "now:", "zh_CN": "现为："},
    "page.added": {"en": "added:", "zh_CN": "新增："},
    "page.related": {"en": "Related entries", "zh_CN": "相关条目"},
    "page.diagnose": {
        "en": "To find the line of your own code where this error started, run your script "
        "with {command}: {page}.",
        "zh_CN": "要找到你自己的代码中引发这个报错的那一行，用 {command} 运行你的脚本：{page}。",
    },
    "page.retired_after": {
        "en": "(retired after torch {release})",
        "zh_CN": "（torch {release} 之后已退役）",
    },
    "page.entry": {"en": "Entry", "zh_CN": "条目"},
    "page.docs": {"en": "In PyTorch's documentation:", "zh_CN": "PyTorch 文档："},
    "page.matrix_wording": {"en": "wording {variant}", "zh_CN": "措辞 {variant}"},
    "page.matrix_not_applicable": {
        "en": "not applicable: the repro uses an API the release lacks",
        "zh_CN": "不适用：最小复现用到了该版本没有的 API",
    },
    "page.matrix_retired": {
        "en": "retired: the release no longer raises the message",
        "zh_CN": "已退役：该版本不再抛出这条报错信息",
    },
    "page.feedback_question": {
        "en": "Wrong match or missing entry?",
        "zh_CN": "匹配错了，或者缺少条目？",
    },
    "page.feedback_link": {"en": "Open an issue on GitHub", "zh_CN": "在 GitHub 上提交 issue"},
    "page.feedback_after": {
        "en": ": the form comes filled in, and you review it before sending.",
        "zh_CN": "：表单已预先填好，发送前你可以先检查一遍。",
    },
    # The lint rules' pages and the entry pages' "Caught before it runs" (sphinxext/lint_pages.py).
    "lint.caught": {"en": "Caught before it runs", "zh_CN": "运行之前就能发现"},
    "lint.caught_intro": {
        "en": "`python -m autograd_errors lint` (and its flake8 plugin) flags the code that "
        "leads here, before it runs:",
        "zh_CN": "`python -m autograd_errors lint`（及其 flake8 插件）会在代码运行之前"
        "报告导致这个问题的写法：",
    },
    "lint.prints": {"en": "What lint prints", "zh_CN": "lint 打印的内容"},
    "lint.prevents": {"en": "Prevents:", "zh_CN": "预防的问题："},
    "lint.flagged": {"en": "Flagged", "zh_CN": "会被报告"},
    "lint.not_flagged": {"en": "Not flagged", "zh_CN": "不会被报告"},
    "lint.silent": {"en": "When it stays silent", "zh_CN": "什么时候不报告"},
    "lint.noqa": {
        "en": "To silence it on one line, end the line with `# noqa: {code}`.",
        "zh_CN": "要在某一行上关闭它，在行末写 `# noqa: {code}`。",
    },
    "lint.off_title": {"en": "Off by default", "zh_CN": "默认关闭"},
    "lint.off_body": {
        "en": "An opinionated rule: reported only when selected, `lint --select {prefix}` "
        "(or `--select {code}`; flake8: `--extend-select {prefix}`).",
        "zh_CN": "这是一条主观规则：只有被选中时才报告，`lint --select {prefix}`（或 "
        "`--select {code}`；flake8：`--extend-select {prefix}`）。",
    },
    "lint.off_short": {"en": "(off by default)", "zh_CN": "（默认关闭）"},
    "lint.code": {"en": "Code", "zh_CN": "代码"},
    "lint.rule": {"en": "Rule", "zh_CN": "规则"},
    "page.glossary_en": {"en": "English", "zh_CN": "英文"},
    "page.glossary_zh": {"en": "Chinese", "zh_CN": "中文"},
    "page.glossary_notes": {"en": "In the notes", "zh_CN": "笔记中的说法"},
    "page.glossary_usage": {"en": "Usage", "zh_CN": "用法"},
    # The paste boxes (sphinxext/paste_forms.py): the paste page's and the home page's.
    "page.paste_label": {
        "en": "Error message or traceback",
        "zh_CN": "报错信息或回溯信息（traceback）",
    },
    "page.paste_home_label": {"en": "Paste your error", "zh_CN": "粘贴你的报错"},
    "page.paste_button": {"en": "Explain", "zh_CN": "解释"},
    # The theme's words that are settings rather than its translated strings (the others are
    # in locales/zh_CN/LC_MESSAGES/sphinx.po); set per language by sphinxext/languages.py.
    "theme.more": {"en": "More", "zh_CN": "更多"},
    "theme.search_bar": {"en": "Search the docs ...", "zh_CN": "搜索文档……"},
    "theme.copyright": {
        "en": "2026, autograd-errors contributors",
        "zh_CN": "2026，autograd-errors 贡献者",
    },
    "page.language": {"en": "中文", "zh_CN": "English"},
    "page.language_title": {"en": "阅读中文版", "zh_CN": "Read this page in English"},
    # The paste page and the search page (static/autograd-ui.js): the build writes them, in its
    # language and without the "paste." prefix, to _static/autograd-strings.js, which the pages'
    # script reads (its text(name, values) fills in the {names}).
    "paste.matching": {"en": "Matching...", "zh_CN": "正在匹配……"},
    "paste.catalogFailed": {
        "en": "The catalog could not be loaded ({reason}).",
        "zh_CN": "无法加载条目目录（{reason}）。",
    },
    "paste.why": {"en": "Why. ", "zh_CN": "原因。"},
    "paste.diagnose": {
        "en": "To find the line of your own code where this started, run your script as "
        "`python -m autograd_errors run --diagnose train.py`: it names that line.",
        "zh_CN": "要找到你自己的代码中引发这个报错的那一行，这样运行你的脚本："
        "`python -m autograd_errors run --diagnose train.py`，它会指出那一行。",
    },
    "paste.diagnoseLink": {"en": "Diagnose your script", "zh_CN": "诊断你的脚本"},
    "paste.readEntry": {
        "en": "Read the whole entry, with the repro and the fixes",
        "zh_CN": "阅读完整条目（含最小复现和修复方法）",
    },
    "paste.shared": {
        "en": "{count} entries share this part of a message; none stands out.",
        "zh_CN": "{count} 个条目都含有这段报错信息，无法确定是哪一个。",
    },
    "paste.several": {
        "en": "{count} entries in this paste, the final exception first.",
        "zh_CN": "这段粘贴内容涉及 {count} 个条目，最后抛出的异常排在最前。",
    },
    "paste.notAutograd": {"en": "Not an autograd error", "zh_CN": "不是自动求导（autograd）的报错"},
    "paste.notAutogradHint": {"en": " ({kind}): {hint} See ", "zh_CN": "（{kind}）：{hint} 参见 "},
    "paste.nearMisses": {
        "en": "Not matches, but the closest entries (their wording differs):",
        "zh_CN": "没有匹配，以下是最接近的条目（措辞不同）：",
    },
    "paste.noMatch": {"en": "No entry matches this text.", "zh_CN": "没有条目与这段文本匹配。"},
    "paste.tryThe": {"en": "Try the ", "zh_CN": "可以用"},
    "paste.siteSearch": {"en": "site search", "zh_CN": "站内搜索"},
    "paste.forTheWords": {"en": " for the words of the message.", "zh_CN": "查找报错信息中的词。"},
    "paste.searchTitle": {"en": "Search Results", "zh_CN": "搜索结果"},
    "paste.searchNothing": {
        "en": "Nothing on this site matches this text.",
        "zh_CN": "本站没有与这段文本匹配的内容。",
    },
    "paste.searchUnrecognised": {
        "en": "No entry recognises this text; pages sharing its words follow.",
        "zh_CN": "没有条目能识别这段文本；以下是含有其中词语的页面。",
    },
    "paste.searchShared": {
        "en": "{summary} Related pages follow.",
        "zh_CN": "{summary}以下是相关页面。",
    },
    "paste.searchOne": {
        "en": "This text is explained by 1 entry; related pages follow.",
        "zh_CN": "有 1 个条目解释这段文本；以下是相关页面。",
    },
    "paste.searchMany": {
        "en": "This text is explained by {count} entries; related pages follow.",
        "zh_CN": "有 {count} 个条目解释这段文本；以下是相关页面。",
    },
    "paste.feedbackQuestion": {
        "en": "Wrong match or missing entry? ",
        "zh_CN": "匹配错了，或者缺少条目？",
    },
    "paste.feedbackLink": {"en": "Open an issue on GitHub", "zh_CN": "在 GitHub 上提交 issue"},
    "paste.feedbackAfter": {
        "en": ": the form comes filled in with your paste, and you review it before sending.",
        "zh_CN": "：表单已用你的粘贴内容预先填好，发送前你可以先检查一遍。",
    },
    "paste.feedbackTitleMatch": {"en": "Wrong match: {id}", "zh_CN": "匹配错误：{id}"},
    "paste.feedbackTitleMissing": {"en": "Missing entry: {line}", "zh_CN": "缺少条目：{line}"},
    "paste.feedbackBody": {
        "en": "Pasted on the paste page{cut}:\n\n{paste}\n\nThe page showed: {shown}\n\n"
        "What was wrong or missing:\n\ntorch version: \n",
        "zh_CN": "在粘贴页粘贴的内容{cut}：\n\n{paste}\n\n页面显示：{shown}\n\n"
        "哪里不对或缺少什么：\n\ntorch 版本：\n",
    },
    "paste.feedbackCut": {
        "en": " (its last {count} characters)",
        "zh_CN": "（最后 {count} 个字符）",
    },
    "paste.feedbackNothing": {"en": "no entry", "zh_CN": "没有条目"},
    "paste.toggleSection": {
        "en": "Show or hide the pages of {section}",
        "zh_CN": "显示或隐藏“{section}”中的页面",
    },
    # The coverage page (sphinxext/coverage.py).
    "coverage.summary": {
        "en": (
            "Of {messages} messages torch raises or warns in the autograd area ({releases}), "
            "{covered} have an entry ({entries} entries cover them), and those cover {percent}% "
            "of the {threads} public threads counted ({date})."
        ),
        "zh_CN": (
            "torch 在自动求导（autograd）范围内抛出或警告的 {messages} 条报错信息中（{releases}），"
            "{covered} 条有条目（由 {entries} 个条目覆盖），它们覆盖了统计到的 {threads} "
            "个公开讨论帖中的 {percent}%（统计于 {date}）。"
        ),
    },
    "coverage.message": {"en": "Message", "zh_CN": "报错信息"},
    "coverage.entry": {"en": "Entry", "zh_CN": "条目"},
    "coverage.threads": {"en": "Threads", "zh_CN": "讨论帖"},
    "coverage.location": {"en": "Raised at", "zh_CN": "抛出位置"},
    "coverage.none": {"en": "none", "zh_CN": "无"},
    "coverage.only": {"en": "(torch {release} only)", "zh_CN": "（仅 torch {release}）"},
}


def ui(key: str, language: str = ENGLISH, **values: object) -> str:
    """The interface's text ``key`` in ``language``, with its ``{names}`` filled in."""
    template = STRINGS[key][language]
    return template.format(**values) if values else template


def export_strings(language: str) -> dict[str, str]:
    """The paste and search pages' strings in ``language``, keyed without their ``paste.``
    prefix, and the answer's (``answer.*``, keyed as they are), written to the site as
    ``_static/autograd-strings.js``."""
    return {
        key.removeprefix("paste."): texts[language]
        for key, texts in STRINGS.items()
        if key.startswith(("paste.", "answer."))
    }


def releases_text(since: str | None, until: str | None, language: str) -> str:
    """A release range in words (``ReleaseRange.describe`` in any language)."""
    if since and until:
        if since == until:
            return ui("releases.one", language, since=since)
        return ui("releases.span", language, since=since, until=until)
    if since:
        return ui("releases.since", language, since=since)
    if until:
        return ui("releases.until", language, until=until)
    return ui("releases.all", language)


def with_releases(sentence: str, since: str | None, until: str | None, language: str) -> str:
    """A common cause's sentence, with the releases it holds for when they are not all."""
    if since is None and until is None:
        return sentence
    releases = releases_text(since, until, language)
    return f"{sentence} {ui('cause.releases', language, releases=releases)}"


# Which language -------------------------------------------------------------------------------

#: What ``--lang`` accepts, and the language each value means.
LANG_VALUES = {"en": ENGLISH, "zh": CHINESE, "zh_CN": CHINESE, "zh-CN": CHINESE}
#: The locale variables, in POSIX's order of precedence: the first set and non-empty decides.
LOCALE_VARIABLES = ("LC_ALL", "LC_MESSAGES", "LANG")


def parse_lang(value: str) -> str:
    """The language ``--lang value`` asks for; ``ValueError`` with one clear line otherwise."""
    if value not in LANG_VALUES:
        raise ValueError(f"--lang must be en or zh, not {value!r}")
    return LANG_VALUES[value]


def language_from_environment(environ: Mapping[str, str]) -> str:
    """Chinese when the first set one of ``LC_ALL``, ``LC_MESSAGES``, ``LANG`` names a Chinese
    locale (``zh_CN.UTF-8``, ``zh_SG``, ``zh``), else English (``C``, ``POSIX``, ``en_US``...)."""
    for variable in LOCALE_VARIABLES:
        value = environ.get(variable, "")
        if value:
            locale_name = value.split(".")[0].split("@")[0]
            return CHINESE if locale_name == "zh" or locale_name.startswith("zh_") else ENGLISH
    return ENGLISH
