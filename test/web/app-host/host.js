// A test MCP Apps host, as the real ones are built: the ext-apps SDK's host side (AppBridge)
// renders a ui:// resource in a sandboxed iframe and forwards the view's tool calls to the MCP
// server. The test gives it the resource, the tool call and its result and the server's tool
// listing (window.viewData), and carries the forwarded calls to ptyhub over a real MCP client
// (window.callPtyhub). As the spec requires of a host, it refuses the view's call to a tool whose
// visibility leaves out "app" (the model's list, without the app-only tools, is the test's to check).
import { AppBridge, isToolVisibilityModelOnly, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";

/** The names of the tools the view called, in order. */
window.viewCalls = [];

window.startView = async () => {
  const { html, args, result, tools } = await window.viewData();
  const iframe = document.createElement("iframe");
  // As hosts do: scripts run, but the view has an opaque origin of its own.
  iframe.sandbox = "allow-scripts";
  iframe.style.cssText = "width: 900px; height: 520px; border: 1px solid #999";
  document.body.append(iframe);
  const bridge = new AppBridge(null, { name: "ptyhub-test-host", version: "1.0.0" }, { serverTools: {} });
  bridge.oncalltool = (params) => {
    const tool = tools.find((t) => t.name === params.name);
    if (!tool || isToolVisibilityModelOnly(tool)) throw new Error(`${params.name} is not the view's to call`);
    window.viewCalls.push(params.name);
    return window.callPtyhub(params.name, params.arguments ?? {});
  };
  bridge.oninitialized = () => {
    bridge.sendToolInput({ arguments: args });
    bridge.sendToolResult(result);
  };
  const loaded = new Promise((resolve) => {
    iframe.onload = resolve;
  });
  iframe.srcdoc = html;
  await loaded;
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  window.viewStarted = true;
};
