/* The MPI-4 sessions model without MPI_Init (issue 13, case 3): communicators
 * from MPI_Comm_create_from_group on the "mpi://WORLD" process set carry
 * every kind of topology and their neighborhood collectives. Two sessions
 * overlap: the library must keep working after the first is finalized and
 * stop cleanly at the second's finalize. No MPI_COMM_WORLD here, so this
 * program counts failures itself. */
#include <mpi.h>
#include <stdio.h>

static int failures = 0;
static int rank = -1;

#define EXPECT(cond, ...)                                    \
  do {                                                       \
    if (!(cond)) {                                           \
      fprintf(stderr, "rank %d, line %d: ", rank, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                          \
      fprintf(stderr, "\n");                                 \
      ++failures;                                            \
    }                                                        \
  } while (0)

static MPI_Comm world_of(MPI_Session session, const char* tag) {
  MPI_Group group = MPI_GROUP_NULL;
  MPI_Comm comm = MPI_COMM_NULL;
  EXPECT(MPI_Group_from_session_pset(session, "mpi://WORLD", &group) == MPI_SUCCESS, "no group");
  EXPECT(MPI_Comm_create_from_group(group, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &comm) == MPI_SUCCESS,
         "no communicator");
  MPI_Group_free(&group);
  return comm;
}

/* A ring as a dist graph and as a periodic grid; a neighbor exchange on each. */
static void use_topologies(MPI_Comm comm, const char* what) {
  int size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int next = (rank + 1) % size;
  const int previous = (rank + size - 1) % size;
  MPI_Comm graph = MPI_COMM_NULL;
  int rc = MPI_Dist_graph_create_adjacent(comm, 1, &previous, MPI_UNWEIGHTED, 1, &next, MPI_UNWEIGHTED, MPI_INFO_NULL,
                                          0, &graph);
  EXPECT(rc == MPI_SUCCESS, "%s: MPI_Dist_graph_create_adjacent failed", what);
  if (rc == MPI_SUCCESS) {
    int sent = rank, received = -1;
    EXPECT(MPI_Neighbor_alltoall(&sent, 1, MPI_INT, &received, 1, MPI_INT, graph) == MPI_SUCCESS,
           "%s: MPI_Neighbor_alltoall failed", what);
    EXPECT(received == previous, "%s: received %d from the dist graph, expected %d", what, received, previous);
    MPI_Comm_free(&graph);
  }
  const int source = rank;
  const int degree = 1;
  rc = MPI_Dist_graph_create(comm, 1, &source, &degree, &next, MPI_UNWEIGHTED, MPI_INFO_NULL, 1, &graph);
  EXPECT(rc == MPI_SUCCESS, "%s: MPI_Dist_graph_create failed", what);
  if (rc == MPI_SUCCESS) MPI_Comm_free(&graph);
  MPI_Comm cart = MPI_COMM_NULL;
  const int periods[1] = {1};
  rc = MPI_Cart_create(comm, 1, &size, periods, 1, &cart);
  EXPECT(rc == MPI_SUCCESS, "%s: MPI_Cart_create failed", what);
  if (rc == MPI_SUCCESS) {
    int sent[2] = {rank, rank};
    int received[2] = {-1, -1};
    EXPECT(MPI_Neighbor_alltoall(sent, 1, MPI_INT, received, 1, MPI_INT, cart) == MPI_SUCCESS,
           "%s: MPI_Neighbor_alltoall on the grid failed", what);
    int cart_rank = 0;
    MPI_Comm_rank(cart, &cart_rank);
    EXPECT(received[0] == (cart_rank + size - 1) % size, "%s: grid neighbor %d", what, received[0]);
    MPI_Comm_free(&cart);
  }
}

static int total_failures(MPI_Comm comm) {
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, comm);
  return total;
}

int main(void) {
  MPI_Session first = MPI_SESSION_NULL;
  MPI_Session second = MPI_SESSION_NULL;
  EXPECT(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &first) == MPI_SUCCESS, "first session");
  MPI_Comm first_world = world_of(first, "distopo.test.first");
  use_topologies(first_world, "first session");

  EXPECT(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &second) == MPI_SUCCESS, "second session");
  MPI_Comm second_world = world_of(second, "distopo.test.second");
  use_topologies(second_world, "both sessions");
  MPI_Comm_free(&first_world);
  EXPECT(MPI_Session_finalize(&first) == MPI_SUCCESS, "finalizing the first session");

  use_topologies(second_world, "second session");
  const int total = total_failures(second_world);
  MPI_Comm_free(&second_world);
  EXPECT(MPI_Session_finalize(&second) == MPI_SUCCESS, "finalizing the second session");
  return total != 0 || failures != 0;
}
