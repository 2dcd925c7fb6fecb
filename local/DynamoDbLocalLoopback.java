import java.lang.reflect.Field;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.util.Arrays;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

/**
 * Runs AWS's DynamoDB Local bound to one host (127.0.0.1 unless told otherwise).
 *
 * <p>DynamoDB Local's command line has no host option: its Jetty server is made with {@code new Server(port)}, whose
 * one {@code ServerConnector} listens on every interface. This launcher builds the server the way DynamoDB Local's
 * own {@code main} does ({@code ServerRunner.createServerFromCommandLineArgs}), reaches the Jetty server held in
 * {@code DynamoDBProxyServer}'s private field {@code server}, sets the connector's host before anything is bound, and
 * starts it with {@code safeStart} (DynamoDB Local's {@code start} prints a bind failure and carries on; telemetry,
 * which {@code main} alone configures, stays off).
 *
 * <p>Usage: {@code java -cp DynamoDBLocal.jar:DynamoDBLocal_lib/* DynamoDbLocalLoopback.java <host> <DynamoDB Local
 * arguments...>}. Once it listens it prints one line, {@code READY <address> <port>}, to stdout; on any failure
 * (the port is taken, the host is not an address of this machine, DynamoDB Local changed shape) it prints why to
 * stderr and exits with status 1, so a caller never mistakes another process on the port for this one.
 */
public final class DynamoDbLocalLoopback {
  private DynamoDbLocalLoopback() {}

  public static void main(String[] args) {
    if (args.length < 1 || args[0].isEmpty()) fail("usage: DynamoDbLocalLoopback <host> <DynamoDB Local arguments...>", null);
    String host = args[0];
    String where = host;
    try {
      DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(Arrays.copyOfRange(args, 1, args.length));
      Field field = DynamoDBProxyServer.class.getDeclaredField("server");
      field.setAccessible(true);
      Server server = (Server) field.get(proxy);
      Connector[] connectors = server.getConnectors();
      if (connectors.length != 1 || !(connectors[0] instanceof ServerConnector)) {
        fail("DynamoDB Local's Jetty server no longer has exactly one ServerConnector (" + Arrays.toString(connectors) + "); refusing to start it unbound", null);
      }
      ServerConnector connector = (ServerConnector) connectors[0];
      where = host + ":" + connector.getPort();
      connector.setHost(host);
      proxy.safeStart();
      Object transport = connector.getTransport();
      if (!connector.isOpen() || !(transport instanceof ServerSocketChannel)) fail("DynamoDB Local did not open its port on " + where, null);
      InetSocketAddress bound = (InetSocketAddress) ((ServerSocketChannel) transport).getLocalAddress();
      System.out.println("READY " + bound.getAddress().getHostAddress() + " " + bound.getPort());
      System.out.flush();
      proxy.join();
    } catch (Throwable error) {
      fail("DynamoDB Local could not listen on " + where + ": " + describe(error), error);
    }
  }

  private static String describe(Throwable error) {
    StringBuilder text = new StringBuilder(String.valueOf(error));
    for (Throwable cause = error.getCause(); cause != null && cause != cause.getCause(); cause = cause.getCause()) text.append(" <- ").append(cause);
    return text.toString();
  }

  private static void fail(String message, Throwable error) {
    System.err.println(message);
    if (error != null && System.getenv("DYNAMODB_LOCAL_LOOPBACK_TRACE") != null) error.printStackTrace();
    System.err.flush();
    // halt, not exit: Jetty or DynamoDB Local may hold non-daemon threads or shutdown hooks that would keep it alive.
    Runtime.getRuntime().halt(1);
  }
}
