#pragma once
// What distopo's neighborhood collectives call and SimGrid SMPI 3.32 lacks,
// force-included into the neighbor library of the SMPI build
// (-DDISTOPO_SMPI=ON), so that the library's own code runs in the simulator
// unchanged:
//   - the large-count point-to-point calls and datatype constructors
//     (MPI-4 "_c" forms), forwarded to the int forms; a count beyond INT_MAX
//     fails with MPI_ERR_COUNT (no simulated message comes near it);
//   - MPICH's extended generalized requests (MPIX_Grequest_class), which the
//     non-blocking form returns: SMPI has no poll or wait callbacks to drive
//     them, so creating one fails with MPI_ERR_OTHER. The blocking and
//     persistent forms, which the simulations run, do not use them.
#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int MPIX_Grequest_class;
typedef int MPIX_Grequest_poll_function(void* extra_state, MPI_Status* status);
typedef int MPIX_Grequest_wait_function(int count, void** array_of_states, double timeout, MPI_Status* status);

int PMPIX_Grequest_class_create(MPI_Grequest_query_function* query_fn, MPI_Grequest_free_function* free_fn,
                                MPI_Grequest_cancel_function* cancel_fn, MPIX_Grequest_poll_function* poll_fn,
                                MPIX_Grequest_wait_function* wait_fn, MPIX_Grequest_class* greq_class);
int PMPIX_Grequest_class_allocate(MPIX_Grequest_class greq_class, void* extra_state, MPI_Request* request);

int PMPI_Isend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                 MPI_Request* request);
int PMPI_Irecv_c(void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                 MPI_Request* request);
int PMPI_Send_init_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                     MPI_Request* request);
int PMPI_Recv_init_c(void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                     MPI_Request* request);
int PMPI_Type_create_struct_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                              const MPI_Count array_of_displacements[], const MPI_Datatype array_of_types[],
                              MPI_Datatype* newtype);
int PMPI_Type_size_c(MPI_Datatype datatype, MPI_Count* size);

#ifdef __cplusplus
}
#endif
