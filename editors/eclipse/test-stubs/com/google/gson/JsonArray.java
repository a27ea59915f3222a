// Compile-time stand-in for the Eclipse/LSP4E API (tests only; see README.md).
package com.google.gson;

public final class JsonArray extends JsonElement implements Iterable<JsonElement> {
  private final java.util.List<JsonElement> elements = new java.util.ArrayList<>();
  public void add(JsonElement e) { elements.add(e); }
  public java.util.Iterator<JsonElement> iterator() { return elements.iterator(); }
}
